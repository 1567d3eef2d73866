"""The microphone both hosts listen to: resilient, and recorded on request.

A live game must outlast a microphone that goes away (a cable pulled, a
Bluetooth headset asleep, the sound server restarted): the device is opened
through :class:`~voicehost.audio.resilient.ResilientSource`, which reports
the loss, retries, and keeps the sample clock running through the outage as
silence. ``record`` keeps what was heard (``--record-input``).
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from voicehost.errors import DeviceError, print_notes

#: What the host says when the microphone goes away (both games).
MICROPHONE_LOST = "I cannot hear the table: the microphone went away. Wait while I look for it."


def open_microphone(device: int | str | None, on_event: Callable[[Any], None] | None = None,
                    record: str | None = None) -> Any:
    """The input device by index or name, as a block source with ``rate``, ``now`` and ``close``.

    ``on_event`` gets :class:`~voicehost.audio.resilient.DeviceLost`,
    ``DeviceBack`` and ``Overflow`` on the consumer's thread, in the middle
    of a read: it should note them, not read the source itself.
    """
    try:
        from voicehost.audio.microphone import MicrophoneSource
    except ImportError:
        raise DeviceError("live play needs the microphone source, which this voicehost "
                          "does not have; host a recording with --input WAV.") from None
    spec: Any = device
    if isinstance(device, str) and device.isdigit():
        spec = int(device)
    first = MicrophoneSource(spec)  # an unknown device is a one-line error now
    from voicehost.hosts.settings import narrowband_note

    note = narrowband_note(device)
    if note is not None:
        print_notes([note])
    from voicehost.audio.resilient import ResilientSource

    opened = [first]

    def open_source():
        return opened.pop() if opened else MicrophoneSource(spec)

    source = ResilientSource(open_source, rate=first.rate, blocksize=first.blocksize,
                             on_event=on_event)
    if record is None:
        return source
    from voicehost.audio.recording import InputRecorder

    return InputRecorder(source, record)


def report_losses(mic: Any, stream: Any = None) -> str | None:
    """Tell the table's operator, after a live session, how much of its audio was lost.

    An overflow means the computer was too busy to take the microphone's
    audio in time and PortAudio dropped some: the clock was repaired with
    silence, but whatever was sung or said there went unheard, and a play
    or an answer near it may have been judged on less than the table gave.
    Nothing is said aloud (the table cannot act on it); the note goes to
    standard error with the one remedy that helps.
    """
    stats = getattr(mic, "stats", None)
    overflows = int(getattr(stats, "overflows", 0) or 0)
    if not overflows:
        return None
    lost = float(getattr(stats, "repaired_seconds", 0.0) or 0.0)
    amount = f"about {lost:.1f} s of" if lost >= 0.05 else "a little of"
    note = (f"voicehost: note: the input overflowed {overflows} time"
            f"{'s' if overflows != 1 else ''}: {amount} the table's audio was lost because "
            "this computer was too busy. Close other programs while hosting.")
    print(note, file=stream or sys.stderr)
    return note
