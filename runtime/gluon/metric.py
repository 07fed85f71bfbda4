"""``gluon.metric``: MXNet 2's home of the evaluation metrics, which are ``mx.metric``'s
(one implementation, two names: a metric made under either is the same class, so
``mx.metric.create`` and ``gluon.metric.create`` find each other's registrations).
Metrics read their arguments as numpy values, so np arrays and NDArrays both work."""
from ..metric import *  # noqa: F401,F403
from ..metric import __all__  # noqa: F401
