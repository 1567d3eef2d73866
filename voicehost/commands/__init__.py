"""One module per ``voicehost`` sub-command.

Each module defines ``HELP`` (one line), ``add_arguments(parser)`` and
``run(args) -> int``. Modules are imported to build ``--help``, so they must
import heavy libraries (librosa, vosk, pocketsphinx, sounddevice, matplotlib)
inside ``run``, never at module level.
"""
