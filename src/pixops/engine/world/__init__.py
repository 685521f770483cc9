"""The simulated world behind the engine: payers, the DICT key directory, the central bank."""
