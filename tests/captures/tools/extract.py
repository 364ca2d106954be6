"""Extract /proc captures from fetched git mirrors into ext/SOURCE/..., write manifest rows."""
import io, os, re, subprocess, sys, tarfile, hashlib, json

MIRROR = "/work/.mirror"
OUT = "/work/corpus/h17a/ext"

def git(repo, *args, inp=None):
    return subprocess.run(["git", "-C", f"{MIRROR}/{repo}/repo", *args], input=inp,
                          capture_output=True, check=True).stdout

def head_files(repo, regex):
    out = git(repo, "ls-tree", "-r", "-z", "HEAD")
    for ent in out.split(b"\0"):
        if not ent:
            continue
        meta, path = ent.split(b"\t", 1)
        mode, typ, sha = meta.split()
        p = path.decode("utf-8", "replace")
        if typ == b"blob" and re.search(regex, p):
            yield p, sha.decode()

def blob(repo, sha):
    try:
        return git(repo, "cat-file", "blob", sha)
    except subprocess.CalledProcessError:
        return None

def save(dst, data):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(dst, "wb") as f:
        f.write(data)

def untar(data, prefix_dst, member_re=r"(^|/)proc/"):
    n = 0
    try:
        tf = tarfile.open(fileobj=io.BytesIO(data))
    except tarfile.TarError:
        return 0
    for m in tf.getmembers():
        if m.isfile() and re.search(member_re, m.name) and m.size < (16 << 20):
            d = tf.extractfile(m).read()
            save(os.path.join(prefix_dst, m.name.lstrip("./")), d)
            n += 1
    return n

def ttar(data, prefix_dst):
    """prometheus ttar: 'Path: p', 'Lines: n', n lines (NULLBYTE is NUL, a final EOF means no newline)."""
    lines = data.split(b"\n")
    i, n = 0, 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith(b"Path: ") and i + 1 < len(lines) and lines[i + 1].startswith(b"Lines: "):
            path = ln[6:].decode()
            cnt = int(lines[i + 1][7:].split()[0])
            body = lines[i + 2:i + 2 + cnt]
            text = b"".join(b + b"\n" for b in body)
            if text.endswith(b"EOF\n"):
                text = text[:-4]
            text = text.replace(b"NULLBYTE", b"\0")
            save(os.path.join(prefix_dst, path), text)
            n += 1
            i += 2 + cnt
            continue
        i += 1
    return n

if __name__ == "__main__":
    repo, regex, mode = sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "plain"
    total = 0
    for p, sha in head_files(repo, regex):
        data = blob(repo, sha)
        if data is None:
            continue
        dst = os.path.join(OUT, repo, p)
        if p.endswith((".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar")):
            total += untar(data, dst + ".d")
        elif p.endswith(".bz2"):
            import bz2
            save(dst[:-4], bz2.decompress(data)); total += 1
        elif p.endswith(".ttar"):
            total += ttar(data, dst + ".d")
        else:
            save(dst, data); total += 1
    print(repo, total)
