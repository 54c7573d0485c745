"""Trainer: compile, fit, evaluate, predict (filled in below)."""


class Trainer:
    def __init__(self):
        self.compiled = False
