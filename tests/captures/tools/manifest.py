"""Walk live/ and ext/, classify each file as a /proc kind, infer kernel and arch per tree, write manifest.tsv."""
import os, re, sys, json

ROOT = "/work/corpus/h17a"
LICENSES = {
    "live": "this machine (generated here)", "kellyjonbrazil+jc": "MIT", "prometheus+procfs": "Apache-2.0",
    "prometheus+node_exporter": "Apache-2.0", "shirou+gopsutil": "BSD-3-Clause", "sysstat+sysstat": "GPL-2.0",
    "performancecopilot+pcp": "GPL-2.0", "util-linux+util-linux": "GPL-2.0", "open-mpi+hwloc": "BSD-3-Clause",
    "c9s+goprocinfo": "MIT", "elastic+go-sysinfo": "Apache-2.0", "jc-shared": "MIT",
}
FLAT = [  # flat fixture names -> kind
    (r"^pid_(.*)$", lambda m: "PID/" + m.group(1).replace("_w_space_and_nl_in_comm", "").split("_")[0] if m.group(1).startswith(("fdinfo",)) else "PID/" + {"mountinfo": "mountinfo", "numa_maps": "numa_maps"}.get(m.group(1), m.group(1).split("_")[0])),
    (r"^net_(.*)$", lambda m: "net/" + m.group(1)),
    (r"^proc_net_(.*)$", lambda m: "net/" + m.group(1)),
    (r"^procnet-(snmp6?)-", lambda m: "net/" + m.group(1)),
    (r"^(cpuinfo|interrupts|softirqs)-", lambda m: m.group(1)),
    (r"^(stat)2$", lambda m: m.group(1)),
    (r"^(consoles|cpuinfo)2$", lambda m: m.group(1)),
]
JC_EXTRA = {"net_igmp_more": "net/igmp", "net_ipv6_route": "net/ipv6_route", "net_dev_mcast": "net/dev_mcast",
            "pid_smaps_unknown_flag": "PID/smaps", "pid_smaps_wf_flag": "PID/smaps", "pid_stat_w_space_and_nl_in_comm": "PID/stat",
            "pid_fdinfo_dma": "PID/fdinfo", "pid_fdinfo_epoll": "PID/fdinfo", "pid_fdinfo_fanotify": "PID/fdinfo",
            "pid_fdinfo_inotify": "PID/fdinfo", "pid_fdinfo_timerfd": "PID/fdinfo", "pid_numa_maps": "PID/numa_maps",
            "pid_mountinfo": "PID/mountinfo", "driver_rtc": "driver/rtc", "net_if_inet6": "net/if_inet6"}

def kind_of(rel):
    """/proc kind of a file: 'meminfo', 'PID/status', 'net/dev', 'PID/fdinfo' ... or None."""
    parts = rel.split("/")
    if "proc" in parts:
        i = len(parts) - 1 - parts[::-1].index("proc")
        tail = parts[i + 1:]
    elif rel.startswith("live/"):
        tail = parts[2:]
    else:
        base = parts[-1]
        if base in JC_EXTRA:
            return JC_EXTRA[base]
        for rx, fn in FLAT:
            m = re.match(rx, base)
            if m:
                return fn(m)
        if "linux-proc" in rel or "jc-linux-proc" in rel:
            return base
        return None
    if not tail:
        return None
    if len(tail) == 1:
        base = re.sub(r"_[0-9]+$", "", tail[0])
        if base.startswith("net_"):
            base = "net/" + base[4:].replace("_squeeze", "")
        tail = [base]
    if "fd" in tail or tail[-1].startswith(("_", ".")):
        return None
    out = []
    j = 0
    while j < len(tail):
        t = tail[j]
        if t in ("self", "thread-self") or t.isdigit():
            if j + 1 < len(tail) and tail[j + 1] == "task" and j + 2 < len(tail) and tail[j + 2].isdigit():
                j += 2
            out = ["PID"]
        elif t == "fdinfo" and j + 1 < len(tail):
            out.append("fdinfo"); break
        else:
            out.append(t)
        j += 1
    if out and out[0] == "PID" and len(out) > 1 and out[1] == "net":
        out = out[1:]
    return "/".join(out)

def tree_of(rel):
    parts = rel.split("/")
    if "proc" in parts:
        i = len(parts) - 1 - parts[::-1].index("proc")
        return "/".join(parts[:i])
    if rel.startswith("live/"):
        return "/".join(parts[:2])
    return "/".join(parts[:-1])

ARCH_RX = [(rb"vendor_id\s*: (GenuineIntel|AuthenticAMD|HygonGenuine|CentaurHauls)", "x86"),
           (rb"CPU implementer\s*: ", "arm64"), (rb"vendor_id\s*: IBM/S390", "s390x"),
           (rb"cpu\s*: POWER|cpu\s*: PPC|platform\s*: pSeries|cpu\s*: 7[0-9]{2}|cpu\s*: e[0-9]{3}|cpu\s*: 405", "ppc"),
           (rb"cpu model\s*: (MIPS|Loongson|Cavium|ICT|Broadcom)|system type\s*:", "mips"),
           (rb"cpu\s*: Alpha|cpu model\s*: EV", "alpha"), (rb"vendor\s*: GenuineIntel\narch\s*: IA-64|family\s*: Itanium", "ia64"),
           (rb"isa\s*: rv", "riscv"), (rb"cpu family\s*: Loongson|Model Name\s*: Loongson|CPU Family\s*: Loongson", "loongarch"),
           (rb"Processor\s*: ARM|model name\s*: ARMv", "arm"), (rb"ncpus probed|type\s*: sun4", "sparc")]

def arch_of(tree_files, name_hint):
    for f in tree_files:
        if f.endswith("cpuinfo") or "/cpuinfo-" in f:
            data = open(os.path.join(ROOT, f), "rb").read(20000)
            for rx, a in ARCH_RX:
                if re.search(rx, data):
                    if a == "arm64" and re.search(rb"model name\s*: ARMv7|Processor\s*: ARMv7|CPU architecture: 7", data):
                        return "arm"
                    return a
    for key, a in [("aarch64", "arm64"), ("arm64", "arm64"), ("s390", "s390x"), ("i686", "x86-32"), ("x86_64", "x86"),
                   ("alpha", "alpha"), ("ia64", "ia64"), ("ppc", "ppc"), ("power", "ppc"), ("mips", "mips"),
                   ("armv7", "arm"), ("arm", "arm64"), ("rv64", "riscv"), ("loongarch", "loongarch"), ("sparc", "sparc"),
                   ("amd64", "x86"), ("intel64", "x86"), ("em64t", "x86")]:
        if key in name_hint.lower():
            return a
    return ""

KVER_RX = rb"Linux version ([0-9]+\.[0-9]+(?:\.[0-9]+)?[^ ]*)"
def kernel_of(tree, tree_files, name_hint):
    for f in tree_files:
        if f.endswith("/version") or f.endswith("osrelease"):
            data = open(os.path.join(ROOT, f), "rb").read(500)
            m = re.search(KVER_RX, data) or re.match(rb"([0-9]+\.[0-9]+[^\s]*)", data)
            if m:
                return m.group(1).decode()
    m = re.search(r"(?<![0-9.])([2-6]\.[0-9]+\.[0-9]+)(?![0-9])", name_hint)
    if m:
        return m.group(1)
    if tree.startswith("live"):
        return os.uname().release
    return ""

def main():
    rows = []
    files = []
    for top in ("live", "ext"):
        for d, _, fs in os.walk(os.path.join(ROOT, top)):
            for f in fs:
                files.append(os.path.relpath(os.path.join(d, f), ROOT))
    sh = "/work/shared/fixtures/jc-linux-proc"
    trees = {}
    for f in files:
        trees.setdefault(tree_of(f), []).append(f)
    for tree, tf in sorted(trees.items()):
        src = tree.split("/")[1] if tree.startswith("ext/") else "live"
        for f in sorted(tf):
            k = kind_of(f)
            if not k:
                continue
            hint = f
            rows.append({"path": f, "source": src, "license": LICENSES.get(src, "?"), "kind": k,
                         "kernel": kernel_of(tree, tf if not tree.startswith("ext/performancecopilot+pcp/qa/linux") or "/" in tree[len("ext/performancecopilot+pcp/qa/linux/"):] else [f], hint),
                         "arch": arch_of(tf if "linux-proc" not in tree and tree.count("/") > 3 or tree.startswith("live") else [f], hint)})
    with open(os.path.join(ROOT, "manifest.tsv"), "w") as out:
        out.write("path\tsource\tlicense\tkind\tkernel\tarch\n")
        for r in rows:
            out.write("\t".join(r[c] for c in ("path", "source", "license", "kind", "kernel", "arch")) + "\n")
    print(len(rows), "rows")

main()
