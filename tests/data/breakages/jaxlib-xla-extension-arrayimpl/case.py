from jaxlib.xla_extension import ArrayImpl  # breaks

print(ArrayImpl.__name__)
