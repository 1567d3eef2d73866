"""Speech: recognisers behind one interface, grammars per question, answer parsing, the voice.

Knows nothing of the games: the host builds each question's choices.
"""
