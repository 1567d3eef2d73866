"""Sound in: sources stamped with the sample clock, onset detection, chant tracking, play judging.

Knows nothing of the games: the host tells the tracker what song to expect.
"""
