"""The live table: taps and button presses in, accepted events and cues out.

The package, module by module (each small enough to read at once):

- `outcomes`: the `Outcome` of one input, the ring's cues, every outcome code with its
  params (`OUTCOME_CODES`);
- `turn`: the quick/confirm turn as a small declared, pure state machine (idle,
  crystals armed, a take pending its Confirm; `TRANSITIONS`), `Pending` and the turn styles;
- `turn_words`: the turn's steps as outcomes, and what a restart resumes of a turn;
- `dealer`: mock mode's seeded dealer;
- `commit`: the core every input ends in: stored first, then shown to listeners;
- `history`: the host's corrections (rewriting the log);
- `snapshot`: the JSON the page and scripts read, projected once per change;
- `live`: `Table`, which ties them together: the inputs.
"""

from companion.table.commit import Listener, stored_result
from companion.table.live import Table
from companion.table.outcomes import CUE_ACCEPT, CUE_REJECT, DISK_FULL, STORE_ERROR, Outcome

__all__ = [
    "CUE_ACCEPT",
    "CUE_REJECT",
    "DISK_FULL",
    "STORE_ERROR",
    "Listener",
    "Outcome",
    "Table",
    "stored_result",
]
