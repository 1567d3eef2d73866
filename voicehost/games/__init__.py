"""Pure rules engines: no I/O, no clock, randomness only from a passed-in ``random.Random``."""
