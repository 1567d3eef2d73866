"""File sources: any format in, the same pipeline-rate mono blocks out."""

import numpy as np
import pytest
import soundfile as sf

from voicehost.audio.blocks import Block, blocks_from_array, concatenate
from voicehost.audio.mute import MuteWindows
from voicehost.audio.sources import FileSource
from voicehost.errors import AudioFileError


def _tone(rate, seconds=1.0, freq=440.0):
    t = np.arange(int(rate * seconds)) / rate
    return (0.5 * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def test_mono_16k_passes_through_unchanged(tmp_path):
    x = _tone(16000)
    path = tmp_path / "a.wav"
    sf.write(path, x, 16000, subtype="FLOAT")
    y = FileSource(path, blocksize=1000).read()
    np.testing.assert_array_equal(x, y)


def test_blocks_are_stamped_with_the_sample_clock(tmp_path):
    path = tmp_path / "a.wav"
    sf.write(path, _tone(16000, 0.5), 16000)
    blocks = list(FileSource(path, blocksize=1600).blocks())
    assert [b.start for b in blocks] == [0, 1600, 3200, 4800, 6400]
    assert blocks[1].t == pytest.approx(0.1)


@pytest.mark.parametrize("rate", [8000, 22050, 44100, 48000])
@pytest.mark.parametrize("subtype", ["PCM_U8", "PCM_16", "PCM_24", "FLOAT"])
def test_any_rate_and_depth_is_resampled_to_16k(tmp_path, rate, subtype):
    path = tmp_path / "a.wav"
    x = _tone(rate, 1.0, 440.0)
    sf.write(path, x, rate, subtype=subtype)
    y = FileSource(path).read()
    assert abs(len(y) - 16000) <= 2
    # the tone survives: its spectrum peaks at 440 Hz
    spectrum = np.abs(np.fft.rfft(y[:16000] * np.hanning(len(y[:16000]))))
    peak_hz = np.argmax(spectrum) * 16000 / len(y[:16000])
    assert abs(peak_hz - 440) < 3


def test_stereo_is_downmixed(tmp_path):
    left = _tone(16000)
    stereo = np.stack([left, left], axis=1)
    path = tmp_path / "s.wav"
    sf.write(path, stereo, 16000, subtype="FLOAT")
    y = FileSource(path).read()
    np.testing.assert_allclose(y, left, atol=1e-6)


def test_not_audio_is_a_clear_error(tmp_path):
    path = tmp_path / "notes.wav"
    path.write_text("this is not a recording")
    with pytest.raises(AudioFileError, match="cannot read it as audio"):
        FileSource(path)


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(AudioFileError, match="no such file"):
        FileSource(tmp_path / "nope.wav")


def test_nan_samples_are_a_clear_error(tmp_path):
    x = _tone(16000)
    x[100] = np.nan
    path = tmp_path / "nan.wav"
    sf.write(path, x, 16000, subtype="FLOAT")
    with pytest.raises(AudioFileError, match="invalid samples"):
        FileSource(path).read()


def test_blocks_from_array_roundtrip():
    x = np.arange(1000, dtype=np.float32)
    blocks = list(blocks_from_array(x, blocksize=300))
    assert [len(b.samples) for b in blocks] == [300, 300, 300, 100]
    assert isinstance(blocks[0], Block)
    np.testing.assert_array_equal(concatenate(iter(blocks)), x)


def test_mute_windows_merge_and_cover():
    m = MuteWindows(tail=0.25)
    m.add(1.0, 2.0)  # muted until 2.25
    m.add(2.1, 2.5)  # overlaps: merged to [1.0, 2.75)
    assert len(m) == 1
    assert m.covers(1.0) and m.covers(2.7) and not m.covers(2.75) and not m.covers(0.99)
    assert m.overlaps(0.5, 1.01) and not m.overlaps(0.0, 1.0) and not m.overlaps(2.75, 3.0)
    m.add(5.0, 5.0)
    assert len(m) == 2 and m.covers(5.1)
    m.forget_before(3.0)
    assert len(m) == 1 and not m.covers(1.5)
