#!/usr/bin/env bash
# Compiles the textbook kernels (textbook_kernels.cu) into the machine code the
# student edition carries instead of their source: textbook_kernels.fatbin,
# SASS for each architecture of the portable build and no PTX (PTX is a
# readable listing of the kernel). Writes textbook_kernels.fatbin.source, the
# SHA-256 of the source it was made from; the host test
# lesson07.textbook_fatbin.current fails when the source has changed since.
# Run it after changing textbook_kernels.cu, and commit both files.
#
#   grader/tests/07_matmul/make_textbook_fatbin.sh [path/to/nvcc]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
nvcc=${1:-nvcc}
archs=(75 80 86 89 90 100 120)
gencode=()
for a in "${archs[@]}"; do gencode+=(-gencode "arch=compute_$a,code=sm_$a"); done
"$nvcc" -fatbin -std=c++17 -O3 "${gencode[@]}" \
  -I "$root/lessons/07_matmul" -I "$root/common/include" \
  -o "$here/textbook_kernels.fatbin" "$here/textbook_kernels.cu"
sha256sum "$here/textbook_kernels.cu" | cut -d' ' -f1 > "$here/textbook_kernels.fatbin.source"
echo "wrote $here/textbook_kernels.fatbin ($(stat -c %s "$here/textbook_kernels.fatbin") bytes) for sm_${archs[*]}"
