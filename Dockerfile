# The course in a container, for a student's machine and for batch grading on
# a cluster: NVIDIA's CUDA development image with the course built for every
# GPU generation the toolkit supports (--preset portable: sm_75 to sm_120,
# plus PTX for newer ones). The install steps are setup.sh's, the same that
# CI runs, so there is one list of packages.
#
#   docker build -t cuda-course .
#   docker run --gpus all -it --rm -v "$PWD/exercises:/course/exercises" cuda-course
#   grader run lesson01            (inside; your exercises stay on the host)
#
# Apptainer builds the same image for a cluster (README, "In a container").
FROM nvidia/cuda:13.0.2-devel-ubuntu24.04

WORKDIR /course
COPY . .
# setup.sh installs the packages (as root here), configures, builds, and
# grades lesson01, which without a GPU at build time reports that only the
# tests that need none were graded.
RUN ./setup.sh --preset portable && rm -rf /var/lib/apt/lists/*
ENV PATH=/course/build-portable/bin:$PATH
CMD ["bash"]
