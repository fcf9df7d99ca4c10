#!/usr/bin/env bash
# A real, one-node Slurm cluster on this machine, for testing `grader batch
# --engine slurm` against Slurm itself rather than a mock.
#
#   local_cluster.sh start  DIR   creates DIR's cluster (if new) and starts it
#   local_cluster.sh stop   DIR   cancels its jobs, stops its daemons (idempotent)
#   local_cluster.sh status DIR   exit 0 and "up" when its node is idle or busy
#   local_cluster.sh env    DIR   prints `export SLURM_CONF=...` for a shell
#
# `start` exits with 77 when this machine cannot run it (no packages, not
# root), 1 when a daemon does not come up (its log's tail is printed).
#
# DIR may also come from $SLURM_TEST_DIR. Everything lives in DIR: the munge
# key and socket, slurm.conf, state, spool, logs and the job-completion log;
# nothing under /etc, /run or /var is touched, so it can run beside a real
# Slurm or munge and a crashed run leaves only DIR behind. Clients find the
# cluster through SLURM_CONF=DIR/slurm.conf, which names the munge socket.
#
# Needs Debian's packages slurmctld, slurmd, slurm-client and munge (or the
# slurm-wlm metapackage, which pulls in many optional plugins), and root:
# the daemons run as root (SlurmUser=root) and jobs run as the submitter.
#
# Job states: sacct normally reads Slurm's accounting database (slurmdbd
# with MariaDB), which is too heavy for a test. Without it, Slurm 22.05 still
# writes one line per finished job (array tasks included) with
# JobCompType=jobcomp/filetxt, which `sacct --completion` reads; and the
# controller remembers finished jobs for MinJobAge seconds, which `squeue
# --states=all` and `scontrol show job` report. slurm/jobs.hpp says which
# source the grader uses for what.
set -euo pipefail

usage() {
    echo "usage: $0 start|stop|status|env [DIR]   (or DIR in \$SLURM_TEST_DIR)" >&2
    exit 2
}

[[ $# -ge 1 ]] || usage
action=$1
dir=${2:-${SLURM_TEST_DIR:-}}
[[ -n $dir ]] || usage
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
conf=$dir/slurm.conf
# The daemons are in sbin, which a plain user's PATH may lack.
export PATH=$PATH:/usr/sbin:/sbin
socket=$dir/munge/munge.socket
export SLURM_CONF=$conf

# Seconds to wait for a daemon before giving up and showing its log.
readonly start_timeout_s=30

fail() {
    echo "local_cluster: $*" >&2
    exit 1
}

# Exit code 77: this machine cannot run the cluster (the test is skipped,
# saying why), as opposed to 1, a cluster that should have started and did not.
readonly cannot_run_here=77
cannot_run() {
    echo "local_cluster: cannot run here: $*" >&2
    exit "$cannot_run_here"
}

# The last lines of a log, for an error message: why a daemon did not start.
log_tail() {
    local file=$1
    echo "--- last lines of $file:" >&2
    if [[ -f $file ]]; then tail -n 15 "$file" >&2; else echo "(no log written)" >&2; fi
}

# Waits until `$@` succeeds, checking every 0.2 s, for at most $1 seconds.
wait_until() {
    local timeout_s=$1
    shift
    local deadline=$((SECONDS + timeout_s))
    until "$@" >/dev/null 2>&1; do
        ((SECONDS < deadline)) || return 1
        sleep 0.2
    done
}

pid_alive() {
    local pid_file=$1
    [[ -s $pid_file ]] && kill -0 "$(cat "$pid_file")" 2>/dev/null
}

# A TCP port no socket uses now (listening, connected or closing), above the
# usual services and below the kernel's range for outgoing connections, so
# that no connection of another program takes it between now and the
# daemon's bind (a port the last cluster's connections still held once made
# the next cluster's controller fail with "Address already in use").
# Ports are chosen once, when the cluster is created, and kept in slurm.conf.
free_port() {
    local port used low
    used=$(awk 'NR > 1 { split($2, a, ":"); print strtonum("0x" a[2]) }' \
        /proc/net/tcp /proc/net/tcp6 2>/dev/null | sort -u)
    low=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
    [[ $low =~ ^[0-9]+$ && $low -gt 21000 ]] || low=32768
    for _ in $(seq 100); do
        port=$((20000 + RANDOM % (low - 20000)))
        grep -qx "$port" <<<"$used" || { echo "$port"; return; }
    done
    fail "no free TCP port found"
}

check_requirements() {
    local missing=()
    for program in munged mungekey slurmctld slurmd sbatch squeue sacct scancel sinfo scontrol; do
        command -v "$program" >/dev/null || missing+=("$program")
    done
    if ((${#missing[@]})); then
        cannot_run "missing ${missing[*]}: install the Debian packages slurmctld slurmd slurm-client munge"
    fi
    [[ $(id -u) == 0 ]] || cannot_run "not root (the Slurm daemons run as root here)"
}

write_config() {
    local node cpus memory
    node=$(hostname -s)
    # What slurmd finds on this machine, so the node is never "invalid"
    # for claiming more than it has.
    cpus=$(slurmd -C | sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' | head -n 1)
    memory=$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' | head -n 1)
    local controller_port node_port
    controller_port=$(free_port)
    node_port=$(free_port)
    while [[ $node_port == "$controller_port" ]]; do node_port=$(free_port); done
    mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
    chmod 700 "$dir/munge"
    cat >"$conf" <<EOF
# A one-node test cluster made by $0; see that script.
ClusterName=gradertest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$controller_port
SlurmdPort=$node_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire is also how long a requeued job waits before it runs again
# (120 s by default): short, so a test sees a requeued task run again.
AuthInfo=socket=$socket,cred_expire=5
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
# No cgroups: the test machine may be a container without them.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# No accounting database (slurmdbd needs MariaDB): sacct reads the
# job-completion log instead (sacct --completion), one line per finished job.
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.txt
# Remember finished jobs for an hour, so squeue/scontrol still know them.
MinJobAge=3600
# Quick kills and a node that comes back by itself: a test waits on both.
KillWait=2
OverTimeLimit=0
ReturnToService=2
SlurmdTimeout=60
SchedulerType=sched/backfill
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() {
    pid_alive "$dir/munged.pid" && return 0
    [[ -f $dir/munge/munge.key ]] || mungekey --create --keyfile="$dir/munge/munge.key"
    chmod 400 "$dir/munge/munge.key"
    munged --socket="$socket" --key-file="$dir/munge/munge.key" \
        --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" \
        --seed-file="$dir/munge/munged.seed" --force ||
        { log_tail "$dir/log/munged.log"; fail "munged did not start"; }
    wait_until "$start_timeout_s" bash -c "munge -n -S '$socket' | unmunge -S '$socket'" ||
        { log_tail "$dir/log/munged.log"; fail "munged does not answer on $socket"; }
}

controller_up() { scontrol ping | grep -q "is UP"; }
node_ready() { sinfo -h -o %T | grep -Eq '^(idle|mixed|allocated)'; }

start() {
    check_requirements
    [[ -f $conf ]] || write_config
    start_munge
    if ! pid_alive "$dir/slurmctld.pid"; then
        slurmctld -f "$conf" ||
            { log_tail "$dir/log/slurmctld.log"; fail "slurmctld did not start"; }
    fi
    wait_until "$start_timeout_s" controller_up ||
        { log_tail "$dir/log/slurmctld.log"; fail "slurmctld is not up after ${start_timeout_s}s"; }
    if ! pid_alive "$dir/slurmd.pid"; then
        slurmd -f "$conf" ||
            { log_tail "$dir/log/slurmd.log"; fail "slurmd did not start"; }
    fi
    wait_until "$start_timeout_s" node_ready || {
        log_tail "$dir/log/slurmd.log"
        log_tail "$dir/log/slurmctld.log"
        fail "the node is not idle after ${start_timeout_s}s: $(sinfo -h -o '%T %E' 2>&1)"
    }
    echo "local_cluster: up ($(sinfo -h -o '%P %D node(s) %T %c CPUs')); SLURM_CONF=$conf"
}

# Sends SIGTERM, waits up to 10 s, then SIGKILL; quiet when not running.
stop_daemon() {
    local pid_file=$1 pid
    [[ -s $pid_file ]] || return 0
    pid=$(cat "$pid_file")
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        wait_until 10 bash -c "! kill -0 $pid" || kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$pid_file"
}

stop() {
    # Cancel this cluster's jobs first, so no job's processes outlive it.
    if [[ -f $conf ]] && pid_alive "$dir/slurmctld.pid"; then
        local jobs
        jobs=$(squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ')
        if [[ -n ${jobs// /} ]]; then
            # shellcheck disable=SC2086  # one argument per job id
            scancel $jobs 2>/dev/null || true
            wait_until 15 bash -c '[[ -z $(squeue -h -t running,completing -o %A) ]]' || true
        fi
    fi
    stop_daemon "$dir/slurmd.pid"
    stop_daemon "$dir/slurmctld.pid"
    stop_daemon "$dir/munged.pid"
    echo "local_cluster: stopped"
}

status() {
    if pid_alive "$dir/slurmctld.pid" && pid_alive "$dir/slurmd.pid" && node_ready; then
        echo "up"
    else
        echo "down"
        return 1
    fi
}

case $action in
start) start ;;
stop) stop ;;
status) status ;;
env) echo "export SLURM_CONF=$conf" ;;
*) usage ;;
esac
