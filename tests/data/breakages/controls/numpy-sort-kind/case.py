import numpy as np

print(np.sort(np.array([3, 1, 2]), kind='stable'))
