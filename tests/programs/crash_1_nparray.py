"""crash_1_nparray: the code cells of apache/mxnet docs/python_docs/python/tutorials/getting-started/crash-course/1-nparray.md
(commit b84609d3fc73, Apache License 2.0), in order, for tests/programs/cells.py.

Changed: import lines (``mxnet`` -> ``xprof.runtime``).
"""

# %% [1]
import xprof.runtime as mx
from xprof.runtime import np, npx
npx.set_np()  # Activate NumPy-like mode.


# %% [2]
np.array(((1, 2, 3), (5, 6, 7)))


# %% [3]
x = np.full((2, 3), 1) 
x


# %% [4]
x = np.ones((2, 3)) 
x


# %% [5]
y = np.random.uniform(-1, 1, (2, 3))
y


# %% [6]
(x.shape, x.size, x.dtype)


# %% [7]
x = np.full((2, 3), 1, dtype="int8") 
x.dtype


# %% [8]
x = np.full((2, 3), 1) 
x.dtype


# %% [9]
x = x.astype("int8") + x.astype(int) + x.astype("float32")
x.dtype


# %% [10]
x * y


# %% [11]
np.exp(y)


# %% [12]
np.dot(x, y.T)


# %% [13]
np.matmul(x, y.T)


# %% [14]
x.sum()


# %% [15]
x.mean()


# %% [16]
x.flatten()


# %% [17]
x.reshape(6, 1)


# %% [18]
y[1, 2]


# %% [19]
y[:, 1:3]


# %% [20]
y[:, 1:3] = 2
y


# %% [21]
y[1:2, 0:2] = 4
y


# %% [22]
a = x.asnumpy()
(type(a), a)


# %% [23]
a = np.array(a)
(type(a), a)


# %% [24]
a.copyto(mx.gpu(0))
