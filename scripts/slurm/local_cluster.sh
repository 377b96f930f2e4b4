#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, from Debian's packages (slurmctld, slurmd, munge), for
# the Slurm test and for trying scripts/slurm/visprobe_array.sh without a cluster. There is no init
# system here (invoke-rc.d refuses), so the daemons are started by hand: munged as the munge user,
# slurmctld -D and slurmd -D in the background, all state under $VISPROBE_SLURM_DIR.
#   scripts/slurm/local_cluster.sh start    # prints `export SLURM_CONF=...` on stdout
#   scripts/slurm/local_cluster.sh stop
# Clients find the cluster through SLURM_CONF (start prints it). Needs root (CI runs as root).
set -euo pipefail
D="${VISPROBE_SLURM_DIR:-/tmp/visprobe-slurm}"
conf="$D/slurm.conf"
cmd="${1:-start}"

stop() {
  for f in "$D/slurmd.pid" "$D/slurmctld.pid"; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
  done
  pkill -f "slurmctld -D -f $conf" 2>/dev/null || true
  pkill -f "slurmd -D -f $conf" 2>/dev/null || true
}

if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "usage: $0 start|stop" >&2; exit 2; }
for b in slurmctld slurmd munged sbatch squeue scontrol sinfo; do
  command -v "$b" >/dev/null || { echo "local_cluster: $b is missing (apt-get install slurmctld slurmd slurm-client munge)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "local_cluster: run as root (the daemons need it)" >&2; exit 1; }

# munge: a key, its directories, the daemon as the munge user.
mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
if [ ! -s /etc/munge/munge.key ]; then mungekey --create --keyfile=/etc/munge/munge.key >/dev/null; fi
chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge
chmod 0700 /etc/munge; chmod 0400 /etc/munge/munge.key; chmod 0755 /run/munge
if ! pgrep -x munged >/dev/null; then runuser -u munge -- /usr/sbin/munged; fi

host="$(hostname -s)"
node="$(slurmd -C | head -1)"   # the full line (CPUs, sockets, cores, memory): a shorter one puts the node DOWN. Addresses are
# given (127.0.0.1): a CI host name need not resolve.
stop
rm -rf "$D"
mkdir -p "$D/state" "$D/spool"
cat > "$conf" <<CONF
ClusterName=visprobe
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,sched_interval=1
DependencyParameters=kill_invalid_depend
MailProg=/bin/true
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$conf"
slurmctld -D -f "$conf" >"$D/slurmctld.out" 2>&1 &
slurmd -D -f "$conf" >"$D/slurmd.out" 2>&1 &
# Idle within about a second on this kind of machine; give it 30.
for _ in $(seq 1 300); do
  state="$(sinfo -h -N -o '%T' 2>/dev/null | head -1 || true)"
  if [ "$state" = idle ]; then echo "export SLURM_CONF=$conf"; exit 0; fi
  sleep 0.1
done
echo "local_cluster: the node did not become idle (state '${state:-none}'); logs in $D:" >&2
tail -n 20 "$D/slurmctld.log" "$D/slurmd.log" "$D/slurmctld.out" "$D/slurmd.out" >&2 2>/dev/null || true
exit 1
