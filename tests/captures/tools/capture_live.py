"""Copy the live /proc (text files that tools read) into a directory tree."""
import os, sys, stat

PID_FILES = """status stat statm smaps smaps_rollup maps io limits cmdline comm schedstat wchan syscall
cgroup mountinfo mounts mountstats numa_maps sched timerslack_ns oom_score oom_score_adj oom_adj personality
autogroup cpuset loginuid sessionid arch_status ksm_stat ksm_merging_pages stack timers uid_map gid_map setgroups
coredump_filter projid_map timens_offsets""".split()
SKIP_GLOBAL = {"kcore", "kmsg", "kpagecount", "kpageflags", "kpagecgroup", "kallsyms", "sysrq-trigger",
               "self", "thread-self", "config.gz", "keys", "key-users", "pagemap", "mem", "environ",
               "auxv", "clear_refs", "kpageidle", "page_idle", "vmcore"}
LIMIT = 64 << 20

def read(src):
    try:
        st = os.lstat(src)
        if not stat.S_ISREG(st.st_mode):
            return None
        with open(src, "rb") as f:
            return f.read(LIMIT)
    except OSError:
        return None

def save(dst, data):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(dst, "wb") as f:
        f.write(data)

def copy_pid(pdir, out):
    for name in PID_FILES:
        d = read(os.path.join(pdir, name))
        if d is not None:
            save(os.path.join(out, name), d)
    fdi = os.path.join(pdir, "fdinfo")
    try:
        for fd in sorted(os.listdir(fdi), key=int)[:64]:
            d = read(os.path.join(fdi, fd))
            if d is not None:
                save(os.path.join(out, "fdinfo", fd), d)
    except OSError:
        pass

def walk_global(src, out, depth=0):
    try:
        names = sorted(os.listdir(src))
    except OSError:
        return
    for n in names:
        if n.isdigit() or n in SKIP_GLOBAL:
            continue
        p = os.path.join(src, n)
        try:
            st = os.lstat(p)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and depth < 4:
            walk_global(p, os.path.join(out, n), depth + 1)
        elif stat.S_ISREG(st.st_mode) and st.st_mode & 0o444:
            d = read(p)
            if d is not None and b"\0" not in d[:4096]:
                save(os.path.join(out, n), d)

def main(out):
    walk_global("/proc", out)
    for pid in sorted((p for p in os.listdir("/proc") if p.isdigit()), key=int):
        pdir = f"/proc/{pid}"
        copy_pid(pdir, os.path.join(out, pid))
        try:
            tids = [t for t in os.listdir(pdir + "/task") if t != pid]
        except OSError:
            tids = []
        for tid in sorted(tids, key=int)[:8]:
            copy_pid(f"{pdir}/task/{tid}", os.path.join(out, pid, "task", tid))

main(sys.argv[1])
