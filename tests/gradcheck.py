"""Central-difference gradients, shared by the operator and Gluon gradient tests."""
import numpy as np


def numeric_grad(loss, x, eps=1e-6):
    """d loss() / d x by central differences; ``x`` (numpy) is perturbed in place and
    restored element by element."""
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        orig = x[idx]
        x[idx] = orig + eps
        plus = loss()
        x[idx] = orig - eps
        minus = loss()
        x[idx] = orig
        g[idx] = (plus - minus) / (2 * eps)
    return g
