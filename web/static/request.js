// What the pages send the companion: one JSON request with the host's CSRF token. A network
// failure throws; an answer that is not JSON reads as its status text (`error`).
export async function request(method, path, body, csrf) {
  const response = await fetch(path, {
    method, credentials: "same-origin", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf || "" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({ error: response.statusText }));
  return { ok: response.ok, status: response.status, data };
}
