#!/usr/bin/env python3
"""nvmf-target's systemd notifications (sd_notify(3)), on this machine (make local-check).

The test owns a Unix datagram socket and starts build/nvmf-target with NOTIFY_SOCKET naming
it, as systemd does for a Type=notify unit (configs/nvmf-target.service.in):
  - a start that fails (its port is taken) exits 1 and never says READY=1;
  - READY=1 arrives once the tcp port on 127.0.0.1 accepts connections and the control
    socket answers: both are connected to the moment it arrives; STATUS= says
    "serving 1 subsystem on 1 port";
  - a subsystem added through the control socket updates STATUS= (no READY=1);
  - SIGHUP: RELOADING=1 with MONOTONIC_USEC=, then READY=1 with the new STATUS=; a reload
    of a broken file says so in STATUS=;
  - SIGTERM: STOPPING=1, and the target exits 0;
  - NOTIFY_SOCKET naming no socket: a warning naming it, and the target serves all the same.
Each check prints "ok - what" or "FAIL - what"; exit 1 if any failed (it goes on after a
failure). BUILD=build/asan runs the sanitizer build.
"""
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD", "build")
TGT = os.path.join(ROOT, BUILD, "nvmf-target")
CTL = os.path.join(ROOT, BUILD, "nvmf-targetctl")
NQN = "nqn.2024-01.io.nvmf-rdma:notify-local"
NQN2 = "nqn.2024-01.io.nvmf-rdma:notify-local-2"
# The sanitizer build starts slowly on a loaded machine: every wait is bounded, generously.
WAIT = 60

failed = False


def check(ok, what, detail=""):
    global failed
    print(("ok - " if ok else "FAIL - ") + what)
    if not ok:
        failed = True
        if detail:
            print("  " + detail.replace("\n", "\n  "))
    return ok


def free_port():
    """A port below the kernel's ephemeral range that nothing holds now."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        lo = int(f.read().split()[0])
    for _ in range(50):
        port = random.randrange(10000, lo if lo > 11000 else 11000)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    raise RuntimeError("no free port")


def write_config(path, port, broken=False):
    cfg = {
        "nvmf_target": {"hugepages": False, "threads": 1},
        "ports": [{"portid": 1, "addr": {"adrfam": "ipv4", "traddr": "127.0.0.1",
                                         "trsvcid": str(port), "trtype": "tcp",
                                         "treq": "not specified"},
                   "subsystems": [NQN]}],
        "subsystems": [{"nqn": NQN, "attr": {"allow_any_host": "1", "serial": "notify01"},
                        "namespaces": [{"nsid": 1, "enable": 1, "nvmf_backend": "ram",
                                        "nvmf_block_size": 512, "nvmf_size_bytes": "1M"}]}],
    }
    with open(path, "w") as f:
        f.write("{ broken" if broken else json.dumps(cfg))


class Listener:
    """The test's NOTIFY_SOCKET: what the target sends, one datagram a message."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)

    def next(self, timeout=WAIT):
        """The next message as a dict (KEY -> value), or None after @timeout seconds."""
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(4096)
        except socket.timeout:
            return None
        return dict(line.split("=", 1) for line in data.decode().split("\n") if "=" in line)

    def pending(self):
        """Every message already queued, without waiting."""
        out = []
        while True:
            m = self.next(timeout=0.001)
            if m is None:
                return out
            out.append(m)

    def close(self):
        self.sock.close()


def start(config, env_socket, ctl_sock, log):
    env = dict(os.environ, NOTIFY_SOCKET=env_socket)
    return subprocess.Popen([TGT, "-c", config, "--rpc-socket", ctl_sock], env=env,
                            stdout=log, stderr=subprocess.STDOUT)


def wait_exit(proc, timeout=WAIT):
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None


def connects(family, addr):
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        try:
            s.connect(addr)
            return True
        except OSError:
            return False


def log_text(path):
    with open(path, errors="replace") as f:
        return f.read()


def main():
    st = tempfile.mkdtemp(prefix="nvmf-notify-local.")
    config = os.path.join(st, "config.json")
    ctl_sock = os.path.join(st, "ctl.sock")
    log_path = os.path.join(st, "target.log")
    lis = Listener(os.path.join(st, "notify.sock"))
    procs = []
    try:
        run(st, config, ctl_sock, log_path, lis, procs)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        lis.close()
        subprocess.run(["rm", "-rf", st])
    return 1 if failed else 0


def run(st, config, ctl_sock, log_path, lis, procs):
    # A start that fails says no READY=1: systemd sees the exit, not a service that started.
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        write_config(config, holder.getsockname()[1])
        with open(log_path, "w") as log:
            p = start(config, lis.path, ctl_sock, log)
            procs.append(p)
            rc = wait_exit(p)
        msgs = lis.pending()
        check(rc == 1 and not any(m.get("READY") == "1" for m in msgs),
              "a start that cannot bind its port exits 1 and never says READY=1",
              f"exit {rc}, messages {msgs}\n{log_text(log_path)}")

    port = free_port()
    write_config(config, port)
    log = open(log_path, "w")
    p = start(config, lis.path, ctl_sock, log)
    procs.append(p)
    m = lis.next()
    # At once, before anything else: the port and the control socket must answer now.
    tcp_ok = m is not None and connects(socket.AF_INET, ("127.0.0.1", port))
    ctl_ok = m is not None and connects(socket.AF_UNIX, ctl_sock)
    if not check(m is not None and m.get("READY") == "1",
                 "the first notification is READY=1", f"got {m}\n{log_text(log_path)}"):
        return
    check(tcp_ok, "when READY=1 arrives, the tcp port accepts a connection")
    check(ctl_ok, "when READY=1 arrives, the control socket accepts a connection")
    check(m.get("STATUS") == "serving 1 subsystem on 1 port",
          "READY=1's STATUS= says what is served", f"got {m}")

    # A change through the control socket: STATUS= follows, READY= is not said again.
    r = subprocess.run([CTL, "-s", ctl_sock, "subsystem", "add", NQN2, "--allow-any-host"],
                       capture_output=True, text=True, timeout=WAIT)
    m = lis.next() if r.returncode == 0 else None
    check(m is not None and m.get("STATUS") == "serving 2 subsystems on 1 port"
          and "READY" not in m,
          "a subsystem added through the control socket updates STATUS=",
          f"nvmf-targetctl exit {r.returncode} {r.stderr.strip()}; got {m}")

    # SIGHUP (systemctl reload): the file, edited back to one subsystem, is applied (the
    # live add was written through to it: unedited, the reload would change nothing).
    write_config(config, port)
    p.send_signal(signal.SIGHUP)
    m1, m2 = lis.next(), lis.next()
    check(m1 is not None and m1.get("RELOADING") == "1"
          and m1.get("MONOTONIC_USEC", "").isdigit(),
          "SIGHUP: RELOADING=1 with MONOTONIC_USEC= first", f"got {m1}")
    check(m2 is not None and m2.get("READY") == "1"
          and m2.get("STATUS") == "serving 1 subsystem on 1 port",
          "SIGHUP: then READY=1, STATUS= after the reload", f"got {m2}")

    write_config(config, port, broken=True)
    p.send_signal(signal.SIGHUP)
    m1, m2 = lis.next(), lis.next()
    check(m1 is not None and m1.get("RELOADING") == "1" and m2 is not None
          and m2.get("READY") == "1"
          and m2.get("STATUS", "").startswith(
              "serving 1 subsystem on 1 port; the last reload (SIGHUP) failed: "),
          "a failed reload: RELOADING=1, READY=1, STATUS= says the reload failed",
          f"got {m1} then {m2}")
    write_config(config, port)

    # SIGTERM (systemctl stop): STOPPING=1, then the stop as ever.
    p.send_signal(signal.SIGTERM)
    m = lis.next()
    rc = wait_exit(p)
    log.close()
    check(m is not None and m.get("STOPPING") == "1", "SIGTERM: STOPPING=1", f"got {m}")
    check(rc == 0, "SIGTERM: the target exits 0", f"exit {rc}\n{log_text(log_path)}")
    check(lis.pending() == [], "nothing said after STOPPING=1")

    # A NOTIFY_SOCKET nobody listens on: said once, and the target serves.
    gone = os.path.join(st, "nobody.sock")
    with open(log_path, "w") as log:
        p = start(config, gone, ctl_sock, log)
        procs.append(p)
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline and p.poll() is None \
                and "nvmf-target: core: ready" not in log_text(log_path):
            time.sleep(0.1)
        served = connects(socket.AF_INET, ("127.0.0.1", port))
        p.send_signal(signal.SIGTERM)
        rc = wait_exit(p)
    text = log_text(log_path)
    check(served and rc == 0 and f"warning: cannot notify systemd (NOTIFY_SOCKET {gone}): "
          in text, "an unusable NOTIFY_SOCKET is named in a warning and the target serves",
          f"served {served}, exit {rc}\n{text}")


if __name__ == "__main__":
    sys.exit(main())
