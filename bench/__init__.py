"""Benchmarks: voicehost side by side with the reference libraries, printed as ratios."""
