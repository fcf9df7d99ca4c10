// Unchanged from the reference solution: this mutant's mistake is elsewhere.
#include "../../../../solutions/05_streams/pipeline.cu"
