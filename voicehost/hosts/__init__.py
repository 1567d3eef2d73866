"""The hosts: the only place where sound, speech and the rules meet."""
