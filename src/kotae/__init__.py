"""kotae (答え): answers only from your documents, with page-accurate citations."""
import os as _os

# The bundled e5 engine runs its own threads; BLAS threads fighting it on a small machine cost
# more than they give (measured: query embedding 29 ms -> 10 ms on 2 cores with one BLAS thread).
for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_var, "1")

__version__ = "0.1.0"
