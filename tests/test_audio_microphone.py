"""The microphone source: device choice, the callback's queue, the sample clock, a real loopback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from voicehost.audio.microphone import MicrophoneSource, find_device
from voicehost.errors import DeviceError

FAKE_DEVICES = [
    {"name": "HDA Intel PCH: ALC3246 Analog (hw:0,0)", "max_input_channels": 2,
     "default_samplerate": 48000.0},
    {"name": "HDMI 0 (hw:0,3)", "max_input_channels": 0, "default_samplerate": 44100.0},
    {"name": "USB Audio Mic (hw:1,0)", "max_input_channels": 1, "default_samplerate": 48000.0},
    {"name": "pulse", "max_input_channels": 32, "default_samplerate": 44100.0},
]


@pytest.fixture
def fake_devices(monkeypatch):
    import sounddevice as sd

    monkeypatch.setattr(sd, "query_devices", lambda *a, **k: FAKE_DEVICES)


def test_device_by_name_substring_index_or_default(fake_devices):
    assert find_device("usb") == 2
    assert find_device("USB Audio") == 2
    assert find_device("pulse") == 3
    assert find_device(0) == 0
    assert find_device("2") == 2
    assert find_device(None) is None


def test_unknown_device_lists_the_inputs(fake_devices):
    with pytest.raises(DeviceError) as e:
        find_device("bluetooth headset")
    msg = str(e.value)
    assert "bluetooth headset" in msg and "USB Audio Mic" in msg and "HDMI" not in msg
    with pytest.raises(DeviceError):
        find_device(1)  # an output-only device
    with pytest.raises(DeviceError):
        find_device(9)


def _status(overflow=False):
    return SimpleNamespace(input_overflow=overflow)


def _feed(mic, chunks):
    """Call the callback as PortAudio would, then stop, and collect the blocks."""
    for data, adc, overflow in chunks:
        mic._callback(data, len(data), SimpleNamespace(inputBufferAdcTime=adc), _status(overflow))
    mic._stop.set()
    return list(mic._blocks_from_queue())


def test_callback_blocks_are_stamped_with_the_sample_clock(fake_devices):
    mic = MicrophoneSource(device="usb", rate=16000, blocksize=1600)
    mic._device_rate = 16000
    rng = np.random.default_rng(0)
    chunks = [(rng.standard_normal((512, 1)).astype(np.float32), 100.0 + i * 512 / 16000, False)
              for i in range(40)]
    blocks = _feed(mic, chunks)
    assert [b.start for b in blocks] == [i * 1600 for i in range(len(blocks))]
    joined = np.concatenate([b.samples for b in blocks])
    np.testing.assert_array_equal(joined, np.concatenate([c[0][:, 0] for c in chunks])[: len(joined)])
    assert mic.stats.overflows == 0 and mic.stats.gaps == 0 and mic.stats.summary() == ""
    # A key pressed at stream time 101.0 is 1.0 s into the sample clock.
    assert mic.to_sample_clock(101.0) == pytest.approx(1.0)


def test_overflow_is_counted_and_lost_audio_keeps_the_clock(fake_devices):
    mic = MicrophoneSource(device="usb", rate=16000, blocksize=1600)
    mic._device_rate = 16000
    one = np.ones((1600, 1), dtype=np.float32)
    # Buffers at 0.0, 0.1, then PortAudio lost 0.2 s: the next buffer comes at 0.4.
    blocks = _feed(mic, [(one, 5.0, False), (one, 5.1, False), (one, 5.4, True), (one, 5.5, False)])
    assert mic.stats.overflows == 1 and mic.stats.gaps == 1
    assert mic.stats.gap_seconds == pytest.approx(0.2)
    x = np.concatenate([b.samples for b in blocks])
    assert len(x) == 6 * 1600
    assert np.all(x[3200:6400] == 0) and np.all(x[6400:] == 1)
    assert "overflowed 1 times" in mic.stats.summary() and "0.20 s" in mic.stats.summary()


def test_stereo_device_is_downmixed_and_resampled(fake_devices):
    mic = MicrophoneSource(device="usb", rate=16000, blocksize=1600)
    mic._device_rate = 48000
    t = np.arange(4800 * 10) / 48000
    tone = np.sin(2 * np.pi * 440 * t).astype(np.float32)
    stereo = np.stack([tone, tone], axis=1)
    chunks = [(stereo[i : i + 4800], i / 48000, False) for i in range(0, len(stereo), 4800)]
    blocks = _feed(mic, chunks)
    x = np.concatenate([b.samples for b in blocks])
    assert 14000 <= len(x) <= 16000
    assert np.abs(x[2000:10000]).max() == pytest.approx(1.0, abs=0.05)


def test_full_queue_drops_and_counts(fake_devices):
    mic = MicrophoneSource(device="usb", max_queue=2)
    one = np.ones((160, 1), dtype=np.float32)
    for i in range(5):
        mic._callback(one, 160, SimpleNamespace(inputBufferAdcTime=i * 0.01), _status())
    assert mic.stats.dropped == 3


RECORD = r"""
import sys, numpy as np
sys.path.insert(0, sys.argv[1])
from voicehost.audio.microphone import MicrophoneSource
from voicehost.audio.onsets import OnsetDetector
mic = MicrophoneSource("pulse"); det = OnsetDetector(); ons = []
for i, b in enumerate(mic.blocks(max_seconds=float(sys.argv[2]))):
    if i == 0:
        print("ready", flush=True)
    ons += det.process(b)
mic.close()
print(" ".join(f"{o.t:.4f}" for o in ons)); print(mic.stats.overflows)
"""


def test_real_loopback_through_a_pulseaudio_null_sink(pulse, tmp_path):
    """Clicks played into a null sink come back through PortAudio 0.5 s apart."""
    import soundfile as sf

    sink = f"vh_onsets_{os.getpid()}"
    mod = subprocess.run(["pactl", "load-module", "module-null-sink", f"sink_name={sink}"],
                         capture_output=True, text=True)
    assert mod.returncode == 0, mod.stderr
    try:
        rate = 48000
        x = np.zeros(rate * 3, dtype=np.float32)
        rng = np.random.default_rng(0)
        for k in range(5):
            i = int((0.5 + 0.5 * k) * rate)
            x[i : i + 240] = 0.8 * rng.standard_normal(240) * np.exp(-np.arange(240) / 60)
        clicks = tmp_path / "clicks.wav"
        sf.write(clicks, x, rate)
        env = dict(os.environ, PULSE_SINK=sink, PULSE_SOURCE=f"{sink}.monitor")
        root = str(Path(__file__).resolve().parents[1])
        rec = subprocess.Popen([sys.executable, "-c", RECORD, root, "5.0"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert rec.stdout.readline().strip() == "ready", rec.stderr.read()
        subprocess.run(["paplay", str(clicks)], env=env, check=True, timeout=20)
        out, err = rec.communicate(timeout=30)
        assert rec.returncode == 0, err
        times = [float(v) for v in out.split("\n")[0].split()]
        assert len(times) == 5, times
        assert np.allclose(np.diff(times), 0.5, atol=0.003)
    finally:
        subprocess.run(["pactl", "unload-module", mod.stdout.strip()], capture_output=True)
