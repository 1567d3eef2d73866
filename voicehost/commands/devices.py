"""``voicehost devices``: the sound cards PortAudio sees, to choose one by name or index.

Device indices change between boots and when a USB microphone is plugged
in, so the listing shows names too: ``--input-device`` and
``--output-device`` take a name or part of one as well as an index.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass

from voicehost.errors import DeviceError

HELP = "list the sound devices (microphones and speakers) with their index and name"
ORDER = 60


@dataclass(frozen=True)
class Device:
    """One PortAudio device as the user chooses it."""

    index: int
    name: str
    inputs: int
    outputs: int
    rate: float
    default_input: bool = False
    default_output: bool = False


def list_devices() -> list[Device]:
    """Every device PortAudio reports; a DeviceError when PortAudio itself is unusable."""
    try:
        import sounddevice as sd

        devices = sd.query_devices()
        try:
            din, dout = sd.default.device
        except Exception:  # no defaults on a machine without sound cards
            din = dout = -1
    except (OSError, ImportError) as exc:  # libportaudio2 missing
        raise DeviceError(f"cannot list sound devices ({exc}); install libportaudio2.") from None
    except Exception as exc:  # PortAudioError and friends
        raise DeviceError(f"cannot list sound devices ({exc}); check the sound system.") from None
    return [Device(i, str(d["name"]), int(d["max_input_channels"]), int(d["max_output_channels"]),
                   float(d["default_samplerate"]), i == din, i == dout)
            for i, d in enumerate(devices)]


def find_output_device(spec: int | str | None) -> int | None:
    """The output device for ``spec``: an index, a name or part of one, or None (default).

    The same rules as the microphone's :func:`~voicehost.audio.microphone.find_device`.
    """
    if spec is None or (isinstance(spec, str) and not spec.strip()):
        return None
    outputs = [(d.index, d.name) for d in list_devices() if d.outputs > 0]
    listing = "; ".join(f"{i}: {n}" for i, n in outputs) or "none"
    if isinstance(spec, int) or spec.strip().isdigit():
        index = int(spec)
        if any(i == index for i, _ in outputs):
            return index
        raise DeviceError(f"no output device number {index}; output devices are: {listing}.")
    want = spec.strip().lower()
    for match in ([i for i, n in outputs if n.lower() == want],
                  [i for i, n in outputs if want in n.lower()]):
        if match:
            return match[0]
    raise DeviceError(f'no output device named like "{spec}"; output devices are: {listing}.')


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the devices as JSON")


def run(args: argparse.Namespace) -> int:
    devices = list_devices()
    inputs = [d for d in devices if d.inputs > 0]
    outputs = [d for d in devices if d.outputs > 0]
    if args.json:
        print(json.dumps({"inputs": [asdict(d) for d in inputs],
                          "outputs": [asdict(d) for d in outputs]}, indent=1))
        return 0
    for title, rows, default_attr, channels in (
            ("Input devices (microphones), for --input-device:", inputs, "default_input", "inputs"),
            ("Output devices (speakers), for --output-device:", outputs, "default_output", "outputs")):
        print(title)
        if not rows:
            kind = "microphone" if channels == "inputs" else "speakers or headphones"
            print(f"  none found: plug in a {kind}, or check that the sound system "
                  "(PulseAudio, PipeWire or ALSA) is running.")
        for d in rows:
            mark = "  (default)" if getattr(d, default_attr) else ""
            print(f"  {d.index:3d}  {d.name}  [{getattr(d, channels)} ch, "
                  f"{d.rate:.0f} Hz]{mark}")
    return 0
