# The course in a container, for a student's machine: NVIDIA's CUDA
# development image with the student edition built for every GPU generation
# the toolkit supports (--preset portable: sm_75 to sm_120, plus PTX for
# newer ones). The install steps are setup.sh's, the same that CI runs, so
# there is one list of packages. Build it in the student edition (what
# `grader release` writes: no solutions/); the instructor's repository holds
# the answers, which must not go into a student's image.
#
#   docker build -t cuda-course .
#   docker run --gpus all -it --rm -v "$PWD/exercises:/course/exercises" cuda-course
#   grader run lesson01            (inside; your exercises stay on the host)
#
# The student edition's README says more ("In a container").
FROM nvidia/cuda:13.0.2-devel-ubuntu24.04

WORKDIR /course
COPY . .
RUN if [ -d solutions ]; then \
      echo "This is the instructor's repository (solutions/ is here): build the image in the student edition," >&2; \
      echo "which grader release writes (grader release DIR, then docker build DIR)." >&2; \
      exit 1; \
    fi
# setup.sh installs the packages (as root here), configures, builds, and
# grades lesson01, which without a GPU at build time reports that only the
# tests that need none were graded.
RUN ./setup.sh --preset portable && rm -rf /var/lib/apt/lists/*
ENV PATH=/course/build-portable/bin:$PATH
CMD ["bash"]
