"""An observer that keeps every evaluation event, for tests that read node stats and branches."""

from toolkit.observe import Observer


class Recorder(Observer):
    def __init__(self):
        self.events = []

    def on_eval(self, event):
        self.events.append(event)
