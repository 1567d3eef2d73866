"""The user's settings: what calibration measured, kept between games.

``voicehost calibrate`` measures the latency of the user's
sound card and the room's noise floor and stores them in ``config.json``
under the user config folder (platformdirs); the hosts read them through
the small functions here, so a missing or damaged file means the defaults
(latency 0), never a crash. ``VOICEHOST_CONFIG_DIR`` overrides the folder
(tests, or several setups on one machine).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from voicehost.errors import VoicehostError

FILENAME = "config.json"


class SettingsError(VoicehostError):
    """The settings file cannot be written."""


def config_dir() -> Path:
    env = os.environ.get("VOICEHOST_CONFIG_DIR")
    if env:
        return Path(env)
    from platformdirs import user_config_dir

    return Path(user_config_dir("voicehost"))


def config_path() -> Path:
    return config_dir() / FILENAME


def load_settings() -> dict[str, Any]:
    """The stored settings, or ``{}`` when there are none or they cannot be read."""
    try:
        data = json.loads(config_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_settings(updates: dict[str, Any]) -> Path:
    """Merge ``updates`` into the stored settings (for ``calibrate``)."""
    data = load_settings()
    data.update(updates)
    path = config_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise SettingsError(f"cannot write the settings to {path} ({exc.strerror}).") from None
    return path


def _as_number(value: Any) -> float | None:
    """A stored number as a float; None for anything else (a hand-edited file may hold anything)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _number(key: str, default: float) -> float:
    value = _as_number(load_settings().get(key))
    return default if value is None else value


def calibration_latency() -> float:
    """Latency measured by calibration, in seconds (0 when never calibrated).

    The round trip from handing the sound card a sound to the microphone
    hearing it: the host's voice mutes each line that much longer
    (:func:`default_voice <voicehost.hosts.announce.default_voice>`), so a
    speaker that plays late is not heard by the host. It holds the speaker's
    delay, so it says nothing of when a key was pressed: keys are stamped
    with the microphone's clock as they are read.
    """
    value = _number("latency", 0.0)
    return value if 0.0 <= value <= 3.0 else 0.0


#: The least a calibrated tail is (s): the end of a line as trimmed, and the
#: path's timing, are not known to the millisecond.
MIN_TAIL = 0.1


def mute_tail() -> float:
    """Seconds the host stays deaf after each line it says: the room's echo of it.

    Calibration measures how long the room rings after a sound stops (a
    headset or a furnished room: milliseconds; bare walls: a quarter of a
    second and more); the host listens again after it, plus a margin for the
    path's jitter. Never calibrated: a living room's quarter of a second.
    """
    from voicehost.audio.mute import DEFAULT_TAIL

    settings = load_settings()
    echo = _as_number(settings.get("echo"))
    if echo is None or not 0.0 <= echo <= 2.0:
        return DEFAULT_TAIL
    jitter = _as_number(settings.get("latency_jitter")) or 0.0
    return min(2.0, max(MIN_TAIL, echo + max(0.05, 3 * max(jitter, 0.0))))


def noise_floor() -> float | None:
    """The room's noise floor measured by calibration (dBFS), or ``None``."""
    return _as_number(load_settings().get("noise_floor"))


#: Printed when a game opens a microphone that calibration found narrowband.
NARROWBAND_NOTE = (
    "calibration found this microphone's sound path narrowband (nothing above 4 kHz): "
    "the host will hear the \"T\" of Tum, cards slapped and spoken answers less well. "
    "Use a wideband microphone and run 'voicehost calibrate' again.")


def narrowband_note(device: int | str | None) -> str | None:
    """:data:`NARROWBAND_NOTE` when the last calibration, on ``device``, found its path narrowband.

    Only for the device calibrated: another microphone says nothing of it.
    """
    from voicehost.audio.calibration import Bandwidth

    data = load_settings()
    value = _as_number(data.get("upper_band_db"))
    if value is None or str(data.get("calibrated_input")) != str(device):
        return None
    return NARROWBAND_NOTE if Bandwidth(value).narrow else None
