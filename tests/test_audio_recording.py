"""``--record-input``: the blocks the host read, kept on its sample clock."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf

from voicehost.audio.blocks import Block, blocks_from_array
from voicehost.audio.recording import InputRecorder
from voicehost.audio.sources import FileSource
from voicehost.errors import DeviceError


class _Source:
    """A live-like source: given blocks, a clock, and whether it was closed."""

    rate = 16000

    def __init__(self, blocks):
        self._blocks = blocks
        self.closed = False

    def blocks(self):
        yield from self._blocks

    def now(self) -> float:
        return 12.5

    def close(self) -> None:
        self.closed = True


def test_blocks_pass_through_unchanged_and_the_file_holds_them_at_their_times(tmp_path):
    rng = np.random.default_rng(1)
    a = (rng.normal(0, 0.1, 1600)).astype(np.float32)
    b = (rng.normal(0, 0.1, 1600)).astype(np.float32)
    c = (rng.normal(0, 0.1, 1600)).astype(np.float32)
    # b after a gap of 800 samples (a source that skipped), c overlapping b by 400.
    given = [Block(0, a), Block(2400, b), Block(3600, c)]
    source = _Source(given)
    path = tmp_path / "heard.wav"
    with InputRecorder(source, path) as mic:
        assert mic.rate == 16000 and mic.now() == 12.5  # the source's own
        out = list(mic.blocks())
    assert source.closed
    assert [blk.start for blk in out] == [0, 2400, 3600]
    assert all(x.samples is y.samples for x, y in zip(out, given))
    heard, rate = sf.read(path, dtype="float32")
    assert rate == 16000 and sf.info(path).subtype == "FLOAT"
    assert len(heard) == 3600 + 1600 - 400 + 400  # up to c's end
    assert np.array_equal(heard[:1600], a)  # exactly what the host had
    assert np.all(heard[1600:2400] == 0)  # the skipped stretch is silence
    assert np.array_equal(heard[2400:4000], b)
    assert np.array_equal(heard[4000:5200], c[400:])  # what was written first stays


def test_hosting_the_recording_hears_the_same_audio(tmp_path):
    rng = np.random.default_rng(2)
    signal = (0.3 * np.sin(np.arange(48000) * 0.05) + rng.normal(0, 0.01, 48000)).astype(np.float32)
    path = tmp_path / "heard.wav"
    with InputRecorder(_Source(list(blocks_from_array(signal))), path) as mic:
        live = np.concatenate([blk.samples for blk in mic.blocks()])
    again = np.concatenate([blk.samples for blk in FileSource(path).blocks()])
    assert np.array_equal(again, live)


def test_an_unwritable_path_is_one_clear_error(tmp_path):
    with pytest.raises(DeviceError, match="--record-input"):
        InputRecorder(_Source([]), tmp_path / "no" / "such" / "folder" / "heard.wav")
