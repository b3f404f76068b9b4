class Config:
    def __init__(self):
        self.data = {'params': 1}

    def unfreeze(self):
        return dict(self.data)

    def pop(self, key):
        return self, self.data[key]

    def copy(self, add_or_replace):
        return {**self.data, **add_or_replace}

    def clip(self, a_min, a_max):
        return a_min, a_max


config = Config()
rest, value = config.pop('params')
print(config.unfreeze(), config.copy({'x': 2}), config.clip(a_min=0, a_max=1), value)
