class Optimizer:
    def __init__(self, model, tx):
        self.model, self.tx = model, tx

    def update(self, grads):
        return grads


optimizer = Optimizer('m', 'tx')
print(optimizer.update(1), optimizer.model)
