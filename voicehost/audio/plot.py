"""The picture a person looks at to see why a play was judged late.

Top: the waveform with the onsets by kind (voice, slap), the beats and the
last Tums (marked when a card was heard in one). Bottom: the onset strength
the detector computed with its adaptive threshold. Plays, when given, are
drawn on both with their verdicts, and each with the on-beat window it was
judged against.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np


def plot_analysis(analysis, path: str | Path, title: str = "", verdicts: Sequence = ()) -> Path:
    """Draw ``analysis`` (with ``record=True``) to a PNG at ``path``."""
    from voicehost.errors import VoicehostError

    path = Path(path)
    if path.parent and not path.parent.exists():
        raise VoicehostError(f"{path.parent}: no such folder for the plot; create it first.")
    fig = draw_analysis(analysis, title, verdicts)  # selects the Agg backend first
    import matplotlib.pyplot as plt

    try:
        fig.savefig(path, dpi=90)
    except (OSError, ValueError) as exc:
        raise VoicehostError(f"cannot write the plot to {path} ({exc}); "
                             "give a writable .png path.") from None
    finally:
        plt.close(fig)
    return path


def draw_analysis(analysis, title: str = "", verdicts: Sequence = ()):
    """The figure of :func:`plot_analysis`, not yet saved (the caller closes it).

    Each judged play is drawn with the window it had to fall in, shaded
    around the last Tum it was paired with (shifted by the perceptual
    offset, as the judge measures), and, when a slap timed it, with the
    moment it was declared: "late" is then visible as a line outside its
    shade, and a late declaration as a dotted line far from the slap.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(15, 6), sharex=True,
                                   gridspec_kw={"height_ratios": [3, 2]})
    x = analysis.samples
    if x is not None and len(x):
        step = max(1, len(x) // 20000)
        env = np.abs(x[: len(x) // step * step]).reshape(-1, step).max(axis=1)
        tt = np.arange(len(env)) * step / analysis.sample_rate
        ax1.fill_between(tt, -env, env, color="0.75", lw=0, label="waveform")
    for b in analysis.tracker.bars:
        for i, bt in enumerate(b.beats):
            ax1.axvline(bt, color="tab:blue", lw=1.6 if i == 0 else 0.8,
                        ls="-" if i == 0 else ":", alpha=0.8)
        if b.last_tum is not None:
            ax1.axvline(b.last_tum, color="tab:red", lw=2, alpha=0.8)
            ax1.text(b.last_tum, 1.02, f"{b.tums}{'R' if b.reversed else ''}", color="tab:red",
                     transform=ax1.get_xaxis_transform(), ha="center", fontsize=8)
    voice = [o.t for o in analysis.onsets if o.kind != "slap"]
    slaps = [o.t for o in analysis.onsets if o.kind == "slap"]
    ax1.plot(voice, np.full(len(voice), 0.9), "v", color="tab:green", label="voice onset",
             transform=ax1.get_xaxis_transform())
    ax1.plot(slaps, np.full(len(slaps), 0.9), "s", color="tab:orange", label="slap",
             transform=ax1.get_xaxis_transform())
    # A card slapped with a last Tum is heard as one onset with it (LastTum.struck):
    # the judge times a play by that Tum, so the picture says why.
    struck = analysis.struck
    if struck:
        ax1.plot(struck, np.full(len(struck), 0.8), "s", mfc="none", color="tab:orange",
                 label="card heard in the Tum", transform=ax1.get_xaxis_transform())
    for s in analysis.stops:
        ax1.axvline(s, color="k", lw=2, ls="--")
    colours = {"on_beat": "tab:green", "early": "tab:purple", "late": "tab:purple",
               "no_song": "k"}
    windows = False
    for v in verdicts:
        for ax in (ax1, ax2):
            ax.axvline(v.t, color=colours.get(v.verdict, "k"), lw=1.5, ls="-.")
        if v.last_tum is not None:
            centre = v.last_tum + v.perceptual_offset_ms / 1000.0
            ax1.axvspan(centre - v.window_ms / 1000.0, centre + v.window_ms / 1000.0,
                        color="tab:green", alpha=0.15, lw=0)
            windows = True
        if v.timed_by == "slap" and v.declared_t != v.t:
            ax1.axvline(v.declared_t, color="0.4", lw=1, ls=":")
            ax1.text(v.declared_t, 0.95, "declared", rotation=90, fontsize=7, va="top",
                     color="0.4", transform=ax1.get_xaxis_transform())
        label = v.verdict.replace("_", " ")
        if v.offset_ms is not None:
            label += f" {v.offset_ms:+.0f} ms"
        ax1.text(v.t, 0.05, label, rotation=90, fontsize=8, va="bottom",
                 transform=ax1.get_xaxis_transform())
    ax1.plot([], [], color="tab:blue", lw=1.6, label="bar start / beats")
    ax1.plot([], [], color="tab:red", lw=2, label="last Tum (Tums heard)")
    if analysis.stops:
        ax1.plot([], [], color="k", lw=2, ls="--", label="song stopped")
    if verdicts:
        ax1.plot([], [], color="0.3", lw=1.5, ls="-.", label="play (verdict)")
    handles, _ = ax1.get_legend_handles_labels()
    if windows:
        handles.append(Patch(color="tab:green", alpha=0.15, lw=0, label="on-beat window"))
    # Outside the axes, on the right: inside it hid the verdicts written there.
    ax1.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=7)
    ax1.set_ylabel("amplitude")
    ax1.set_title(title or "chant analysis")
    if analysis.odf:
        odf = np.array(analysis.odf)
        ax2.plot(odf[:, 0], odf[:, 1], color="tab:green", lw=0.8, label="onset strength")
        ax2.plot(odf[:, 0], odf[:, 2], color="0.4", lw=0.8, ls="--", label="threshold")
        ax2.legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=7)
    ax2.set_ylabel("net flux (bels)")
    ax2.set_xlabel("time on the sample clock (s)")
    fig.tight_layout()
    return fig
