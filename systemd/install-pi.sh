#!/usr/bin/env bash
# Install the Trekking Companion as a service on Raspberry Pi OS.
#
# Run as root from a checkout of the repository:
#
#     sudo systemd/install-pi.sh
#
# What it does (safe to run again, e.g. after "git pull"):
#   1. apt installs the build tools the Pi drivers need;
#   2. enables SPI (the RFID reader) with raspi-config;
#   3. creates the system user "trekking" (no login shell) in the groups spi and gpio;
#   4. copies the checkout to /opt/trekking-companion and installs it with the "pi" extra
#      into /opt/trekking-companion/.venv;
#   5. writes /etc/trekking-companion/config.toml from the example, unless it exists;
#   6. installs /usr/local/bin/trekking-companion, the companion command as the service runs
#      it (its user, its settings and data): sudo trekking-companion pin / doctor;
#   7. installs, enables and (re)starts trekking-companion.service.
# See wiring.md for the hardware and the Pi 4 / Pi 5 differences.
#
# Rehearsing in a chroot (scripts/rehearse-pi does it on a PC, under qemu):
#     systemd/install-pi.sh --chroot
# for a root file system with no systemd running and no Pi underneath: the unit is
# installed and enabled but not started, the state directory systemd would create is
# made by hand, the spi and gpio groups are created if the OS lacks them, and the
# board model can be given as PI_MODEL="Raspberry Pi 5 Model B Rev 1.0" (otherwise it
# is read from /proc/device-tree/model).

set -euo pipefail

APP=trekking-companion
USER_NAME=trekking
PREFIX=/opt/$APP
VENV=$PREFIX/.venv
CONF_DIR=/etc/$APP
STATE_DIR=/var/lib/$APP
UNIT=$APP.service
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

say() { printf '==> %s\n' "$*"; }
# pip's output, each line with the time, and how long each package that compiled took
# ("compiled spidev in 66 s"): what hardware/README.md quotes comes from these lines.
timed() {
    local line name now
    local -A began=()
    while IFS= read -r line; do
        now=$(date +%s)
        printf '    [%s] %s\n' "$(date -u -d "@$now" +%H:%M:%S)" "$line"
        if [[ $line =~ Building\ wheel\ for\ ([^ ]+)\ .*:\ started ]]; then
            began[${BASH_REMATCH[1]}]=$now
        elif [[ $line =~ Building\ wheel\ for\ ([^ ]+)\ .*:\ finished\ with\ status\ \'([a-z]+)\' ]]; then
            name=${BASH_REMATCH[1]}
            say "  compiled $name in $((now - ${began[$name]:-$now})) s (${BASH_REMATCH[2]})"
        fi
    done
}
warn() { printf 'warning: %s\n' "$*" >&2; }
die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}

chroot_mode=no
for arg in "$@"; do
    case $arg in
        --chroot) chroot_mode=yes ;;
        *) die "unknown option $arg (the only one is --chroot)" ;;
    esac
done

[[ $EUID -eq 0 ]] || die "run as root: sudo $0"
[[ -f $SRC/pyproject.toml && -f $SRC/systemd/$UNIT ]] ||
    die "$SRC does not look like a Trekking Companion checkout"
[[ -f $SRC/companion/config.example.toml ]] ||
    die "$SRC/companion/config.example.toml is missing; update the checkout"

model=${PI_MODEL:-}
if [[ -z $model && -r /proc/device-tree/model ]]; then
    model=$(tr -d '\0' </proc/device-tree/model)
fi
arch=$(uname -m)
is_pi5=no
case $model in
    # "Raspberry Pi 5" also matches the Pi 500.
    *"Raspberry Pi 5"* | *"Compute Module 5"*) is_pi5=yes ;;
    *) ;;
esac
say "Board: ${model:-unknown} ($arch)"

# 1. Packages. build-essential compiles spidev, RPi.GPIO and lgpio when no wheel fits;
#    rsync is used for the copy below.
say "Installing packages"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq python3-venv python3-dev git swig build-essential rsync
apt-get install -y -qq liblgpio-dev ||
    warn "liblgpio-dev is not available on this OS; pip will use an lgpio wheel instead"

# 2. SPI for the MFRC522 reader.
if command -v raspi-config >/dev/null 2>&1; then
    say "Enabling SPI"
    raspi-config nonint do_spi 0
else
    warn "raspi-config not found: enable SPI yourself (dtparam=spi=on in config.txt)"
fi

# 3. Service user.
if ! id "$USER_NAME" >/dev/null 2>&1; then
    say "Creating system user $USER_NAME"
    useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home \
        --shell /usr/sbin/nologin "$USER_NAME"
fi
for group in spi gpio; do
    if ! getent group "$group" >/dev/null && [[ $chroot_mode == yes ]]; then
        groupadd --system "$group"
    fi
    if getent group "$group" >/dev/null; then
        usermod -a -G "$group" "$USER_NAME"
    else
        warn "group $group does not exist; $USER_NAME cannot reach its devices"
    fi
done

# 4. Code and virtual environment.
say "Copying $SRC to $PREFIX"
mkdir -p "$PREFIX"
if [[ $SRC != "$PREFIX" ]]; then
    rsync -a --delete \
        --exclude .venv --exclude .git \
        --exclude __pycache__ --exclude '*.egg-info' --exclude build \
        --exclude .mypy_cache --exclude .pytest_cache --exclude .ruff_cache --exclude .hypothesis \
        "$SRC"/ "$PREFIX"/
fi
chown -R root:root "$PREFIX"

say "Installing the companion into $VENV"
step_started=$(date +%s)
[[ -x $VENV/bin/python ]] || python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --upgrade pip
# spidev, rpi_ws281x and lgpio have no wheel for the Pi's Python and compile here:
# about a minute each on a Pi Zero 2 W (hardware/README.md lists what and why).
# pip's own output is kept, timed: each compiled package says how long it took.
say "  compiling spidev, rpi_ws281x and lgpio when no wheel fits: this takes a few minutes"
"$VENV/bin/pip" install --progress-bar off "${PREFIX}[pi]" 2>&1 | timed

# mfrc522 depends on RPi.GPIO, but on a 64-bit OS (and on any Pi 5) rpi-lgpio must
# provide the RPi.GPIO module. Both packages install the same module, so remove
# RPi.GPIO and reinstall rpi-lgpio on top.
if [[ $arch == aarch64 || $is_pi5 == yes ]]; then
    say "Using rpi-lgpio as RPi.GPIO"
    "$VENV/bin/pip" uninstall --quiet -y RPi.GPIO || true
    "$VENV/bin/pip" install --progress-bar off rpi-lgpio 2>&1 | timed
    "$VENV/bin/pip" install --progress-bar off --force-reinstall --no-deps rpi-lgpio 2>&1 | timed
fi
say "  the companion and its drivers installed in $(($(date +%s) - step_started)) s"

# Pi 5: the ring goes through the PIO block (/dev/pio0), not rpi_ws281x. The "pi"
# extra installs its driver on every 64-bit Pi (pip cannot tell a Pi 5 from a Pi 4);
# it is imported on a Pi 5 only.
if [[ $is_pi5 == yes ]]; then
    if [[ $arch != aarch64 ]]; then
        warn "the Pi 5 ring driver exists for the 64-bit OS only: install Raspberry Pi OS (64-bit)"
    fi
    if [[ $chroot_mode == yes ]]; then
        say "Chroot: not checking /dev/pio0"
    elif [[ ! -e /dev/pio0 ]]; then
        warn "/dev/pio0 is missing: run 'apt full-upgrade' and reboot (PIO needs a recent kernel)"
    else
        pio_group=$(stat -c %G /dev/pio0)
        if [[ $pio_group != gpio ]]; then
            say "Giving the gpio group access to /dev/pio0"
            echo 'SUBSYSTEM=="*-pio", GROUP="gpio", MODE="0660"' >"/etc/udev/rules.d/99-$APP-pio.rules"
            udevadm control --reload
            udevadm trigger --action=change /dev/pio0 || true
        fi
    fi
fi

# 5. Configuration (never overwritten).
install -d -m 0755 "$CONF_DIR"
if [[ ! -e $CONF_DIR/config.toml ]]; then
    say "Writing $CONF_DIR/config.toml"
    install -m 0640 -o root -g "$USER_NAME" "$PREFIX/companion/config.example.toml" "$CONF_DIR/config.toml"
else
    say "Keeping the existing $CONF_DIR/config.toml"
fi

# 6. The companion command as the service runs it, for the host: sudo trekking-companion pin.
say "Installing /usr/local/bin/$APP (sudo $APP pin, sudo $APP doctor)"
install -m 0755 "$PREFIX/systemd/$APP" "/usr/local/bin/$APP"

# mDNS: announce the page as <hostname>.local (Raspberry Pi OS ships avahi-daemon).
if [[ -d /etc/avahi/services ]]; then
    say "Announcing the page over mDNS (/etc/avahi/services/$APP.service)"
    install -m 0644 "$PREFIX/systemd/$APP.avahi.service" "/etc/avahi/services/$APP.service"
fi

# 7. Service.
say "Installing $UNIT"
install -m 0644 "$PREFIX/systemd/$UNIT" "/etc/systemd/system/$UNIT"
if [[ $chroot_mode == yes ]]; then
    # No systemd runs here: enable offline, and make the state directory that
    # StateDirectory= would make at the first start.
    say "Chroot: enabling $UNIT without starting it"
    install -d -m 0700 -o "$USER_NAME" -g "$USER_NAME" "$STATE_DIR"
    if command -v systemctl >/dev/null 2>&1; then
        systemctl enable "$UNIT" || warn "systemctl could not enable $UNIT offline"
    else
        mkdir -p /etc/systemd/system/multi-user.target.wants
        ln -sf "/etc/systemd/system/$UNIT" "/etc/systemd/system/multi-user.target.wants/$UNIT"
    fi
elif systemctl is-active --quiet "$UNIT"; then
    systemctl daemon-reload
    systemctl enable "$UNIT"
    systemctl restart "$UNIT"
else
    systemctl daemon-reload
    systemctl enable --now "$UNIT"
fi

if [[ $is_pi5 == no && ! -d /etc/systemd/system/$UNIT.d ]]; then
    cat <<EOF

NOTE for Raspberry Pi 4 and older: the NeoPixel ring's driver needs root (/dev/mem).
Until you add the drop-in below, the companion runs without the ring. Run
    sudo systemctl edit $APP
and enter
    [Service]
    User=root
    Group=root
    CapabilityBoundingSet=CAP_SYS_RAWIO
    DeviceAllow=/dev/mem rw
    DeviceAllow=/dev/vcio rw
Also add dtparam=audio=off to /boot/firmware/config.txt and reboot.
EOF
fi

if [[ ! -e /dev/spidev0.0 && $chroot_mode == no ]]; then
    warn "/dev/spidev0.0 does not exist yet: reboot so that SPI is enabled"
fi

if [[ $chroot_mode == yes ]]; then
    started="is installed and enabled (not started: no systemd runs in this chroot)"
else
    started="is running as a service"
fi
cat <<EOF

Done. The Trekking Companion $started.
  Logs:    journalctl -u $APP -f
  Status:  systemctl status $APP
  Config:  $CONF_DIR/config.toml (then: sudo systemctl restart $APP)
  Data:    $STATE_DIR
  The table PIN (for the page's Host controls):
    sudo $APP pin
  Check the wiring (stop the service first; see wiring.md, Test checklist):
    sudo systemctl stop $APP && sudo $APP doctor; sudo systemctl start $APP
  Any other companion command, as the service runs it: sudo $APP --help
EOF
