"""``mx.runtime``: the features this build has, as MXNet's ``mx.runtime.Features()``.

xprof is pure Python on numpy, CPU only: no CUDA, cuDNN, oneDNN, TensorRT or
distributed kvstore; 64-bit tensor sizes, dense storage and the profiler are there.
"""
import collections

__all__ = ["Feature", "Features", "feature_list"]

_ENABLED = {"INT64_TENSOR_SIZE", "PROFILER"}
_NAMES = ("CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT", "CPU_SSE", "CPU_SSE2",
          "CPU_SSE3", "CPU_SSE4_1", "CPU_SSE4_2", "CPU_SSE4A", "CPU_AVX", "CPU_AVX2",
          "OPENMP", "SSE", "F16C", "JEMALLOC", "BLAS_OPEN", "BLAS_ATLAS", "BLAS_MKL",
          "BLAS_APPLE", "LAPACK", "MKLDNN", "OPENCV", "CAFFE", "PROFILER", "DIST_KVSTORE",
          "CXX14", "INT64_TENSOR_SIZE", "SIGNAL_HANDLER", "DEBUG", "TVM_OP")


class Feature(collections.namedtuple("Feature", "name enabled")):
    def __repr__(self):
        return ("✔ " if self.enabled else "✖ ") + self.name


def feature_list():
    return [Feature(n, n in _ENABLED) for n in _NAMES]


class Features(collections.OrderedDict):
    """Name -> :class:`Feature` for every feature MXNet 1.x names."""

    def __init__(self):
        super().__init__((f.name, f) for f in feature_list())

    def is_enabled(self, feature_name):
        name = feature_name.upper()
        if name not in self:
            raise RuntimeError(f"feature {feature_name!r} is unknown; known: "
                               f"{', '.join(self)}")
        return self[name].enabled
