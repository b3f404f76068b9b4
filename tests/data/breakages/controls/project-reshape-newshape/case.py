def reshape(x, newshape):
    return newshape


print(reshape([1, 2], newshape=(2,)))
