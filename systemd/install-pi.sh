#!/usr/bin/env bash
# Install the Trekking Companion as a service on Raspberry Pi OS (64-bit), on a
# Raspberry Pi Zero 2 W, 3, 4 or 5.
#
# Run as root from a checkout of the repository:
#
#     sudo systemd/install-pi.sh
#
# What it does (safe to run again, e.g. after "git pull"); each step is named, and a
# failure says which step failed:
#   checks    refuses a 32-bit OS and a board the companion does not support, before
#             anything is changed;
#   packages  apt installs the build tools the Pi drivers need;
#   boot      enables SPI0 (the NeoPixel ring, /dev/spidev0.0) and SPI1 (the RFID reader)
#             and pins the core clock the SPI clock follows on a Pi 3 / Zero 2 W / Pi 4, in
#             one marked block of config.txt with the firmware's board filters, so one SD
#             card boots right in any supported board;
#   user      creates the system user "trekking" (no login shell) in the groups spi and gpio;
#   udev      writes the rules that give /dev/spidev* to spi and /dev/gpiochip* to gpio,
#             whether or not the devices exist yet (they appear after the reboot);
#   code      copies the checkout to /opt/trekking-companion;
#   lgpio     installs lgpio (gpiozero's pin library): a wheel where one fits this Python,
#             else built against the OS's liblgpio-dev, else built self-contained (PYPI=1);
#   python    installs the companion with the "pi" extra into /opt/trekking-companion/.venv,
#             and the "venue" extra (paho-mqtt) with --venue or when config.toml has a
#             [venue] broker (docs/venue.md);
#   config    writes /etc/trekking-companion/config.toml from the example, unless it exists;
#   command   installs /usr/local/bin/trekking-companion (sudo trekking-companion pin / doctor);
#   service   installs and enables trekking-companion.service;
#   doctor    says whether a reboot is needed; if so, arranges one "companion doctor" run at
#             the next boot (its report: journalctl -b -u trekking-companion-doctor),
#             otherwise runs it at once.
# See wiring.md for the hardware.
#
# Rehearsing in a chroot (scripts/rehearse-pi does it on a PC, under qemu):
#     PI_MODEL="Raspberry Pi 5 Model B Rev 1.0" systemd/install-pi.sh --chroot
# for a root file system with no systemd running and no Pi underneath: the unit is
# enabled but not started, the state directory systemd would create is made by hand,
# and the board model comes from PI_MODEL (otherwise from /proc/device-tree/model).
#
# Testing on a PC (tests/test_install_pi.py): these variables stand in for the machine,
#   TREKKING_ROOT      a directory used as the root file system for every file written
#                      (config.txt, udev rules, units, /etc/passwd and /etc/group);
#   PI_MODEL           the board's model string;
#   PI_ARCH            the kernel's architecture (uname -m);
#   PI_USERLAND_ARCH   the OS's architecture (dpkg --print-architecture);
#   BOOT_CONFIG        the config.txt to edit;
# and --only STEP,STEP runs only those steps (the checks always run first).

set -eEuo pipefail

APP=trekking-companion
USER_NAME=trekking
ROOT=${TREKKING_ROOT:-}
ROOT=${ROOT%/}
PREFIX=/opt/$APP
VENV=$ROOT$PREFIX/.venv
CONF_DIR=/etc/$APP
STATE_DIR=/var/lib/$APP
UNIT=$APP.service
DOCTOR_UNIT=$APP-doctor.service
DOCTOR_FLAG=$CONF_DIR/doctor-at-next-boot
UDEV_RULES=/etc/udev/rules.d/60-$APP.rules
BLOCK_BEGIN="# >>> $APP: written by systemd/install-pi.sh, replaced on each install"
BLOCK_END="# <<< $APP"
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ALL_STEPS="packages boot user udev code lgpio python config command service doctor"

say() { printf '==> %s\n' "$*"; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() {
    printf 'error: %s\n' "$*" >&2
    if [[ ${current_step:-checks} != checks ]]; then
        printf '       (step "%s"; fix that, then run the installer again: it is safe to run again)\n' \
            "$current_step" >&2
    fi
    exit 1
}
# pip's output, each line with the time, and how long each package that compiled took
# ("compiled spidev in 66 s"): what hardware/README.md quotes comes from these lines.
# bash's own clock and printf, no program per line: under qemu two runs of date took about a
# second a line, and the stamps fell minutes behind pip ("compiled spidev in 2 s" under a
# "still running..." that pip writes after a minute).
timed() {
    local line name now stamp
    local -A began=()
    local -x TZ=UTC
    while IFS= read -r line; do
        now=$EPOCHSECONDS
        printf -v stamp '%(%H:%M:%S)T' "$now"
        printf '    [%s] %s\n' "$stamp" "$line"
        if [[ $line =~ Building\ wheel\ for\ ([^ ]+)\ .*:\ started ]]; then
            began[${BASH_REMATCH[1]}]=$now
        elif [[ $line =~ Building\ wheel\ for\ ([^ ]+)\ .*:\ finished\ with\ status\ \'([a-z]+)\' ]]; then
            name=${BASH_REMATCH[1]}
            say "  compiled $name in $((now - ${began[$name]:-$now})) s (${BASH_REMATCH[2]})"
        fi
    done
}

chroot_mode=no
venue=no
only=""
while [[ $# -gt 0 ]]; do
    case $1 in
        --chroot) chroot_mode=yes; shift ;;
        --venue) venue=yes; shift ;;
        --only)
            [[ $# -ge 2 ]] || die "--only needs a list of steps: ${ALL_STEPS// /,}"
            only=${2//,/ }
            shift 2
            ;;
        *) die "unknown option $1 (the options are --chroot, --venue and --only STEP,STEP)" ;;
    esac
done
for step in $only; do
    [[ " $ALL_STEPS " == *" $step "* ]] || die "unknown step $step (the steps are ${ALL_STEPS// /,})"
done
wanted() { [[ -z $only || " $only " == *" $1 "* ]]; }

# Every step runs through run_step, so that a failure names its step.
current_step=checks
on_error() {
    local status=$?
    printf 'error: the installer stopped at step "%s" (exit status %s); the lines above say why.\n' \
        "$current_step" "$status" >&2
    printf '       Fix that, then run it again: sudo %s (it is safe to run again).\n' "$0" >&2
    exit "$status"
}
trap on_error ERR
# How long each step took, said at the end ("took 1159 s: packages 361 s, python 524 s"):
# the slow ones are what a maker waits for (bash's clock: no program runs for it).
step_times=""
run_step() {
    local step_began=$SECONDS took
    if wanted "$1"; then
        current_step=$1
        "step_$1"
        took=$((SECONDS - step_began))
        if [[ $took -ge 10 ]]; then step_times+="${step_times:+, }$1 $took s"; fi
    fi
}

# ---------------------------------------------------------------------------- checks
board=""
# Which supported board the model string names (zero2, pi3, pi4, pi5), or nothing.
board_of() {
    case $1 in
        "Raspberry Pi Zero 2"*) echo zero2 ;;
        "Raspberry Pi 3 "* | "Raspberry Pi Compute Module 3"*) echo pi3 ;;
        "Raspberry Pi 4 "* | "Raspberry Pi 400"* | "Raspberry Pi Compute Module 4"*) echo pi4 ;;
        "Raspberry Pi 5 "* | "Raspberry Pi 500"* | "Raspberry Pi Compute Module 5"*) echo pi5 ;;
        *) ;;
    esac
}

boot_config_path() {
    if [[ -n ${BOOT_CONFIG:-} ]]; then
        echo "$BOOT_CONFIG"
    elif [[ -f $ROOT/boot/firmware/config.txt ]]; then
        echo "$ROOT/boot/firmware/config.txt"
    elif [[ -f $ROOT/boot/config.txt ]]; then
        echo "$ROOT/boot/config.txt"
    fi
}

step_checks() {
    local model kernel_arch os_arch
    if [[ -z $ROOT ]]; then
        [[ $EUID -eq 0 ]] || die "run as root: sudo $0"
    fi
    [[ -f $SRC/pyproject.toml && -f $SRC/systemd/$UNIT ]] ||
        die "$SRC does not look like a Trekking Companion checkout"
    [[ -f $SRC/companion/config.example.toml ]] ||
        die "$SRC/companion/config.example.toml is missing; update the checkout"

    model=${PI_MODEL:-}
    if [[ -z $model && -r /proc/device-tree/model ]]; then
        model=$(tr -d '\0' </proc/device-tree/model)
    fi
    kernel_arch=${PI_ARCH:-$(uname -m)}
    os_arch=${PI_USERLAND_ARCH:-$(dpkg --print-architecture 2>/dev/null || echo unknown)}
    say "Board: ${model:-unknown}; kernel $kernel_arch, OS $os_arch"

    case $kernel_arch in
        aarch64 | arm64) ;;
        armv6l | armv7l | armv8l | arm*)
            die "this is a 32-bit system (kernel $kernel_arch). The companion needs Raspberry Pi OS Lite (64-bit): write it to the SD card with Raspberry Pi Imager (Choose OS, Raspberry Pi OS (other), Raspberry Pi OS Lite (64-bit)) and run this again."
            ;;
        *)
            die "this is not a Raspberry Pi (kernel $kernel_arch). Run the installer on the Pi itself, with Raspberry Pi OS Lite (64-bit); to try the companion on a PC, see the README (scripts/companion run --mock)."
            ;;
    esac
    case $os_arch in
        arm64) ;;
        armhf | armel)
            die "this Raspberry Pi OS is the 32-bit one ($os_arch), even if its kernel is 64-bit. The companion needs Raspberry Pi OS Lite (64-bit): write it to the SD card with Raspberry Pi Imager (Choose OS, Raspberry Pi OS (other), Raspberry Pi OS Lite (64-bit)) and run this again."
            ;;
        *) die "this OS is built for $os_arch; the companion needs Raspberry Pi OS Lite (64-bit) (arm64)." ;;
    esac

    if [[ -z $model ]]; then
        die "no board model in /proc/device-tree/model: run this on a Raspberry Pi Zero 2 W, 3, 4 or 5 (to rehearse elsewhere, give PI_MODEL=\"Raspberry Pi 4 Model B Rev 1.5\" and --chroot)."
    fi
    board=$(board_of "$model")
    if [[ -n $board ]]; then
        say "Supported board ($board)"
    else
        die "the companion does not support this board ($model): its ring, reader and buttons are set up for a Raspberry Pi Zero 2 W, 3, 4 or 5, not for a Pi 1, 2, Zero or Zero W. Move the SD card to one of those and run this again."
    fi

    if wanted boot; then
        boot_config=$(boot_config_path)
        [[ -n $boot_config ]] ||
            die "no config.txt in $ROOT/boot/firmware or $ROOT/boot: is the boot partition mounted? (mount it, or give its path as BOOT_CONFIG=/path/to/config.txt)"
    fi
}

# --------------------------------------------------------------------------- packages
# A Pi on Wi-Fi loses a download now and then: pip tries each one again this many times
# (its default is 5, a few seconds in all).
export PIP_RETRIES=${PIP_RETRIES:-15}
# pip's lines reach timed() as pip writes them (a pipe would otherwise hold them in Python's buffer,
# and every line of a build would be stamped at its end: "compiled spidev in 0 s").
export PYTHONUNBUFFERED=1

step_packages() {
    # build-essential, python3-dev and swig compile spidev and lgpio when no wheel fits;
    # rsync is used for the copy below.
    say "Installing packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq python3-venv python3-dev git swig build-essential rsync
}

# ------------------------------------------------------------------------------- boot
# The block this installer keeps in config.txt. [all] first and last: whatever section
# the file ends in, SPI is on for every board, and nothing after the block is filtered.
# The SPI clock of a Pi 3 / Zero 2 W / Pi 4 is divided from the VPU core clock, which
# the firmware scales with load: pinning the core clock keeps the NeoPixel bits at
# their width (the clocks rpi_ws281x's README gives for SPI). A Pi 5's SPI (RP1) runs
# from a fixed clock and needs nothing.
boot_block() {
    cat <<EOF
$BLOCK_BEGIN
[all]
# SPI0 (DMA): the NeoPixel ring (/dev/spidev0.0, MOSI = GPIO10, pin 19).
dtparam=spi=on
# SPI1: the RFID reader (/dev/spidev1.0: SCLK pin 40, MOSI pin 38, MISO pin 35, CE0 GPIO18 pin 12).
dtoverlay=spi1-1cs
# The SPI clock follows the core clock: pin it so the ring's timing holds.
[pi3]
core_freq=250
[pi02]
core_freq=250
[pi4]
core_freq=500
core_freq_min=500
[all]
$BLOCK_END
EOF
}

reboot_needed=no
step_boot() {
    local before after block
    say "Enabling SPI0 and SPI1 in $boot_config"
    before=$(cat "$boot_config")
    block=$(boot_block)
    if grep -qxF "$BLOCK_BEGIN" "$boot_config"; then
        # An earlier install's block is replaced where it stands: the lines after it stay
        # under its closing [all].
        after=$(awk -v b="$BLOCK_BEGIN" -v e="$BLOCK_END" -v block="$block" '
            $0 == b { print block; inside = 1; next }
            inside { if ($0 == e) inside = 0; next }
            { print }' "$boot_config")
    else
        after=$(printf '%s\n%s' "$before" "$block")
    fi
    if [[ $after == "$before" ]]; then
        say "  $boot_config already holds these settings"
        return
    fi
    printf '%s\n' "$after" >"$boot_config.trekking-new"
    mv "$boot_config.trekking-new" "$boot_config"
    say "  $boot_config changed: the new settings take effect at the next boot"
    reboot_needed=yes
}

# ------------------------------------------------------------------------------- user
# Membership read from the files themselves, so that a root given as TREKKING_ROOT is
# read, not this machine's.
user_exists() { grep -q "^$1:" "$ROOT/etc/passwd" 2>/dev/null; }
group_exists() { grep -q "^$1:" "$ROOT/etc/group" 2>/dev/null; }
# The numeric ids, for install and chown: a name would be looked up on this machine.
uid_of() { awk -F: -v n="$1" '$1 == n { print $3 }' "$ROOT/etc/passwd"; }
gid_of() { awk -F: -v n="$1" '$1 == n { print $3 }' "$ROOT/etc/group"; }
in_group() { grep -Eq "^$2:[^:]*:[^:]*:(.*,)?$1(,.*)?$" "$ROOT/etc/group" 2>/dev/null; }

step_user() {
    local prefix=()
    [[ -z $ROOT ]] || prefix=(--prefix "$ROOT")
    # Raspberry Pi OS has both groups; plain Debian has neither. The udev rules below
    # give the devices to them, so they must exist.
    for group in spi gpio; do
        if ! group_exists "$group"; then
            say "Creating the system group $group"
            groupadd "${prefix[@]}" --system "$group"
        fi
    done
    if ! user_exists "$USER_NAME"; then
        say "Creating the system user $USER_NAME"
        useradd "${prefix[@]}" --system --user-group --home-dir "$STATE_DIR" --no-create-home \
            --shell /usr/sbin/nologin "$USER_NAME"
    fi
    for group in spi gpio; do
        if ! in_group "$USER_NAME" "$group"; then
            say "Adding $USER_NAME to the group $group"
            usermod "${prefix[@]}" -a -G "$group" "$USER_NAME"
        fi
    done
}

# ------------------------------------------------------------------------------- udev
step_udev() {
    say "Writing $UDEV_RULES (spidev for the group spi, gpiochip for the group gpio)"
    install -d -m 0755 "$ROOT/etc/udev/rules.d"
    cat >"$ROOT$UDEV_RULES" <<'EOF'
# Written by the Trekking Companion's systemd/install-pi.sh: the ring (SPI0) and the
# reader (SPI1) for the group spi, the buttons and the reader's reset line for the group
# gpio, whenever the devices appear (Raspberry Pi OS has the same in 99-com.rules;
# plain Debian has none).
SUBSYSTEM=="spidev", KERNEL=="spidev*", GROUP="spi", MODE="0660"
SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"
EOF
    # Earlier installs gave /dev/pio0 to the ring on a Pi 5; the ring is on SPI0 now.
    rm -f "$ROOT/etc/udev/rules.d/99-$APP-pio.rules"
    if [[ -z $ROOT && $chroot_mode == no ]] && command -v udevadm >/dev/null 2>&1; then
        udevadm control --reload
        udevadm trigger --action=change --subsystem-match=spidev --subsystem-match=gpio || true
    fi
}

# ------------------------------------------------------------------------------- code
step_code() {
    say "Copying $SRC to $PREFIX"
    mkdir -p "$ROOT$PREFIX"
    if [[ $SRC != "$ROOT$PREFIX" ]]; then
        rsync -a --delete \
            --exclude .venv --exclude .git \
            --exclude __pycache__ --exclude '*.egg-info' --exclude build \
            --exclude .mypy_cache --exclude .pytest_cache --exclude .ruff_cache --exclude .hypothesis \
            "$SRC"/ "$ROOT$PREFIX"/
    fi
    chown -R 0:0 "$ROOT$PREFIX"
    [[ -x $VENV/bin/python ]] || python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --upgrade pip
}

# ------------------------------------------------------------------------------ lgpio
# lgpio's wheels stop at some Python (0.2.2.0: 3.9-3.12); Raspberry Pi OS trixie has 3.13.
# Without a wheel pip builds its source package, which links the system's liblgpio
# unless PYPI=1 asks for a module with the library compiled in (lgpio's setup.py).
# Which package an OS has is asked of apt; what it answers depends on the archive
# (Raspberry Pi OS's own, or Debian's).
apt_has() { [[ -n $(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p' | grep -v none) ]]; }

# How the lgpio in the venv was obtained: its WHEEL file names a manylinux tag for a wheel from
# the index; one built here (from its source package) has this machine's plain linux tag.
lgpio_origin() {
    local wheel
    wheel=$(compgen -G "$VENV/lib/python3*/site-packages/lgpio-*.dist-info/WHEEL" | head -n 1)
    if [[ -z $wheel ]]; then
        echo "in an unknown way"
    elif grep -q '^Tag: .*manylinux' "$wheel"; then
        echo "as a wheel from the index"
    else
        echo "built here from its source package"
    fi
}

step_lgpio() {
    local pip=("$VENV/bin/pip" install --progress-bar off) wheel_try status
    say "Installing lgpio (gpiozero's pin library)"
    if "$VENV/bin/python" -c "import lgpio" 2>/dev/null; then
        say "  lgpio is installed already ($(lgpio_origin)); kept"
        return
    fi
    # pip's own words for a Python with no wheel are two ERROR lines: said after what they mean.
    status=0
    wheel_try=$("${pip[@]}" --only-binary lgpio "lgpio>=0.2.2" 2>&1) || status=$?
    if [[ $status -eq 0 ]]; then
        printf '%s\n' "$wheel_try" | timed
        say "  lgpio: a wheel fits this Python"
        return
    fi
    if apt_has liblgpio-dev; then
        say "  no lgpio wheel for this Python (pip's two ERROR lines below say so): building it against the OS's liblgpio-dev"
        printf '%s\n' "$wheel_try" | timed
        apt-get install -y -qq liblgpio-dev
        "${pip[@]}" --no-binary lgpio "lgpio>=0.2.2" 2>&1 | timed
    else
        say "  no lgpio wheel for this Python (pip's two ERROR lines below say so) and no liblgpio-dev in apt: building lgpio self-contained (PYPI=1)"
        printf '%s\n' "$wheel_try" | timed
        PYPI=1 "${pip[@]}" --no-binary lgpio --no-cache-dir "lgpio>=0.2.2" 2>&1 | timed
    fi
    "$VENV/bin/python" -c "import lgpio" ||
        die "lgpio was built but does not import (see the lines above)"
    say "  lgpio installed ($(lgpio_origin))"
}

# ----------------------------------------------------------------------------- python
# The RFID driver. mfrc522 declares RPi.GPIO, the original GPIO library, which has no wheel
# (pip compiles it: about a minute on a Pi 4 under load, more on a Zero 2 W), does not work
# on a Pi 5, and cannot share a venv with rpi-lgpio, which provides the same RPi.GPIO module
# on every board. So mfrc522 is not in the pi extra: it is installed after it, without its
# dependencies. Pinned, because its imports were checked for this version: RPi.GPIO and
# spidev, both from the pi extra (tests/project/test_install_pi.py).
MFRC522=mfrc522==0.0.7

step_python() {
    local started
    say "Installing the companion into $VENV"
    started=$(date +%s)
    # spidev (and the other drivers without a wheel for this Python) compile here: about
    # a minute each on a Pi Zero 2 W (hardware/README.md lists what and why). pip's own
    # output is kept, timed: each compiled package says how long it took.
    say "  compiling the drivers that have no wheel for this Python: this takes a few minutes"
    local extras=pi
    # A table of a venue needs paho-mqtt: --venue, or a [venue] broker in the existing config.
    if [[ $venue == yes ]] || python3 -c 'import sys, tomllib
sys.exit(not tomllib.load(open(sys.argv[1], "rb")).get("venue", {}).get("broker"))' \
        "$ROOT$CONF_DIR/config.toml" 2>/dev/null; then
        say "  with the venue extra (paho-mqtt, docs/venue.md)"
        extras=pi,venue
    fi
    "$VENV/bin/pip" install --progress-bar off "${ROOT}${PREFIX}[$extras]" 2>&1 | timed
    # The RFID driver without its declared dependencies: what it imports is in already
    # (spidev, and the RPi.GPIO module from rpi-lgpio), and the one it declares besides,
    # the original RPi.GPIO, would be compiled (no wheel) only to be removed.
    say "  the RFID driver ($MFRC522) without the original RPi.GPIO it declares: rpi-lgpio provides RPi.GPIO"
    "$VENV/bin/pip" install --progress-bar off --no-deps "$MFRC522" 2>&1 | timed
    # An install from before this one built the original RPi.GPIO over rpi-lgpio's module.
    if "$VENV/bin/pip" show RPi.GPIO >/dev/null 2>&1; then
        say "  removing the original RPi.GPIO an earlier install left, and putting rpi-lgpio's RPi.GPIO back"
        "$VENV/bin/pip" uninstall --quiet -y RPi.GPIO
        "$VENV/bin/pip" install --progress-bar off --force-reinstall --no-deps rpi-lgpio 2>&1 | timed
    fi
    say "  the companion and its drivers installed in $(($(date +%s) - started)) s"
}

# ----------------------------------------------------------------------------- config
step_config() {
    install -d -m 0755 "$ROOT$CONF_DIR"
    if [[ ! -e $ROOT$CONF_DIR/config.toml ]]; then
        say "Writing $CONF_DIR/config.toml"
        install -m 0640 -o 0 -g "$(gid_of "$USER_NAME")" "$SRC/companion/config.example.toml" "$ROOT$CONF_DIR/config.toml"
    else
        say "Keeping the existing $CONF_DIR/config.toml"
    fi
}

# ---------------------------------------------------------------------------- command
step_command() {
    say "Installing /usr/local/bin/$APP (sudo $APP pin, sudo $APP doctor)"
    install -D -m 0755 "$SRC/systemd/$APP" "$ROOT/usr/local/bin/$APP"
    # mDNS: announce the page as <hostname>.local (Raspberry Pi OS ships avahi-daemon).
    if [[ -d $ROOT/etc/avahi/services ]]; then
        say "Announcing the page over mDNS (/etc/avahi/services/$APP.service)"
        install -m 0644 "$SRC/systemd/$APP.avahi.service" "$ROOT/etc/avahi/services/$APP.service"
    fi
}

# ---------------------------------------------------------------------------- service
offline() { [[ -n $ROOT || $chroot_mode == yes ]]; }

enable_units() {
    if ! offline; then
        systemctl daemon-reload
        systemctl enable "$@"
    elif command -v systemctl >/dev/null 2>&1 && systemctl --root="${ROOT:-/}" enable "$@" 2>/dev/null; then
        :
    else
        install -d "$ROOT/etc/systemd/system/multi-user.target.wants"
        for unit in "$@"; do
            ln -sf "/etc/systemd/system/$unit" "$ROOT/etc/systemd/system/multi-user.target.wants/$unit"
        done
    fi
}

step_service() {
    say "Installing $UNIT and $DOCTOR_UNIT"
    install -D -m 0644 "$SRC/systemd/$UNIT" "$ROOT/etc/systemd/system/$UNIT"
    install -D -m 0644 "$SRC/systemd/$DOCTOR_UNIT" "$ROOT/etc/systemd/system/$DOCTOR_UNIT"
    if offline; then
        # No systemd runs here: make the state directory StateDirectory= would make.
        install -d -m 0700 "$ROOT$STATE_DIR"
        chown "$(uid_of "$USER_NAME"):$(gid_of "$USER_NAME")" "$ROOT$STATE_DIR"
    fi
    enable_units "$UNIT" "$DOCTOR_UNIT"
    if [[ -d $ROOT/etc/systemd/system/$UNIT.d ]] && grep -rqs '^User=root' "$ROOT/etc/systemd/system/$UNIT.d"; then
        warn "a drop-in in /etc/systemd/system/$UNIT.d runs the companion as root; the ring no longer needs it (SPI0): remove it with sudo systemctl revert $APP"
    fi
}

# ----------------------------------------------------------------------------- doctor
step_doctor() {
    if [[ -z $ROOT && $chroot_mode == no ]] && [[ ! -e /dev/spidev0.0 || ! -e /dev/spidev1.0 ]]; then
        reboot_needed=yes
    fi
    echo
    if [[ $reboot_needed == yes ]]; then
        # The one-shot unit runs the doctor once, before the service, at the next boot.
        install -d -m 0755 "$ROOT$CONF_DIR"
        : >"$ROOT$DOCTOR_FLAG"
        say "A REBOOT IS NEEDED: SPI0 and SPI1 start only at boot."
        cat <<EOF
    Reboot now:        sudo reboot
    At the next start the companion checks its wiring once, by itself, before the service
    starts. Read that report (one line per check, each ✗ with its fix) with:
                       journalctl -b -u $APP-doctor
    The reader and button checks pass only if a sticker is held on the reader and the
    buttons are pressed then; for the full interactive check, later:
                       sudo systemctl stop $APP && sudo $APP doctor; sudo systemctl start $APP
EOF
        return
    fi
    say "No reboot is needed: SPI0 and SPI1 are already on."
    if offline; then
        say "Offline install: the doctor runs at the first start (scripts/rehearse-pi runs it here)"
        return
    fi
    say "Checking the wiring now: companion doctor (the service waits until it is done)"
    systemctl stop "$UNIT" 2>/dev/null || true
    "/usr/local/bin/$APP" doctor ||
        warn "the doctor found problems (each ✗ above says its fix); the service starts anyway"
    systemctl start "$UNIT"
}

step_checks
for step in $ALL_STEPS; do
    run_step "$step"
done
current_step=finished

if [[ -n $only ]]; then
    say "Done: $only"
    exit 0
fi
if [[ $chroot_mode == yes ]]; then
    started="is installed and enabled (not started: no systemd runs in this chroot)"
elif [[ $reboot_needed == yes ]]; then
    started="is installed and enabled: it starts after the reboot"
else
    started="is running as a service"
fi
cat <<EOF

Done in $SECONDS s${step_times:+ (}${step_times}${step_times:+)}. The Trekking Companion $started.
  Logs:    journalctl -u $APP -f
  Status:  systemctl status $APP
  Config:  $CONF_DIR/config.toml (then: sudo systemctl restart $APP)
  Data:    $STATE_DIR
  The table PIN (for the page's Host controls):
    sudo $APP pin
  Check the wiring again (stop the service first; see wiring.md, Test checklist):
    sudo systemctl stop $APP && sudo $APP doctor; sudo systemctl start $APP
  Any other companion command, as the service runs it: sudo $APP --help
EOF
