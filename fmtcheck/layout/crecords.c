/*
 * fmtcheck.layout.crecords: run a record DFA (fmtcheck/layout/automaton.py) over a buffer.
 *
 * The table holds, per state, one int32 per byte class: the next state's row offset (state times
 * the number of classes). Offset 0 is the dead state; offsets below `limit` are the accepting
 * states (a record ends there). run() goes from `start` to `stop` with the GIL released (the
 * second half in a thread, each half in eight interleaved streams; see run_halves, run_all) and
 * returns (end of the last whole record, whether the DFA died before `stop`, the newlines up to
 * that end). check() verifies a
 * table once (every entry a row offset inside it, every class below the width), so that run()
 * never reads outside it whatever a cache file held; run() checks its own arguments.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>

static int
table_args(Py_buffer *table, Py_buffer *classes, Py_ssize_t width)
{
    if (table->len % (Py_ssize_t)sizeof(int32_t) || classes->len != 256 || width <= 0) {
        PyErr_SetString(PyExc_ValueError, "malformed record table");
        return -1;
    }
    return 0;
}

static PyObject *
records_check(PyObject *self, PyObject *args)
{
    Py_buffer table, classes;
    Py_ssize_t width, i, n;
    int ok = 1;

    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*n", &table, &classes, &width))
        return NULL;
    if (table_args(&table, &classes, width) < 0) {
        PyBuffer_Release(&table);
        PyBuffer_Release(&classes);
        return NULL;
    }
    n = table.len / (Py_ssize_t)sizeof(int32_t);
    const int32_t *t = (const int32_t *)table.buf;
    const unsigned char *c = (const unsigned char *)classes.buf;
    if (n % width)
        ok = 0;
    for (i = 0; ok && i < n; i++)
        ok = t[i] >= 0 && t[i] % width == 0 && t[i] <= n - width;
    for (i = 0; ok && i < 256; i++)
        ok = c[i] < width;
    PyBuffer_Release(&table);
    PyBuffer_Release(&classes);
    return PyBool_FromLong(ok);
}

#define WAYS 8            /* streams run side by side: their loads overlap instead of queueing (8 run an
                             * smaps record table of 4 MB ~30% faster than 4, a net/dev one as fast) */
#define SPLIT_MIN 65536   /* bytes from which the buffer is split into streams */
#define THREAD_MIN (1 << 20) /* bytes from which the second half goes to a thread */
#define PROBE 4096        /* bytes a candidate split is tried for a whole record */
#define PROBE_LINES 256   /* line starts tried after each nominal split point */

typedef struct {
    const int32_t *t;
    const unsigned char *c;
    const unsigned char *p;
    int32_t lim;
} Dfa;

/* One stream: from START in state S to STOP; *died tells whether the DFA died before STOP. */
static Py_ssize_t
run_one(const Dfa *d, int32_t s, Py_ssize_t start, Py_ssize_t stop, int *died)
{
    const int32_t *t = d->t;
    const unsigned char *c = d->c, *p = d->p;
    const uint32_t lim = (uint32_t)d->lim;
    uint32_t u = (uint32_t)s; /* states unsigned (see run_streams) */
    Py_ssize_t i, last = start;

    for (i = start; i < stop; i++) {
        u = (uint32_t)t[u + c[p[i]]];
        if (u < lim) {
            if (u == 0)
                break;
            last = i + 1;
        }
    }
    *died = i < stop;
    return last;
}

/* A line start near AT where a record of the start state ends within PROBE bytes, or -1. */
static Py_ssize_t
split_near(const Dfa *d, int32_t s, Py_ssize_t at, Py_ssize_t low, Py_ssize_t stop)
{
    int died, tries;
    const unsigned char *nl;

    for (tries = 0; tries < PROBE_LINES && at < stop; tries++) {
        nl = memchr(d->p + at, '\n', (size_t)(stop - at));
        if (nl == NULL)
            return -1;
        at = nl - d->p + 1;
        if (at >= stop)
            return -1;
        if (at > low && run_one(d, s, at, at + PROBE < stop ? at + PROBE : stop, &died) > at)
            return at;
    }
    return -1;
}

/* WAYS streams interleaved over [b[k], b[k+1]): last[k], died[k]. A stream that dies ends the
 * common loop; each then finishes on its own. */
static void
run_streams(const Dfa *d, const int32_t *first, const Py_ssize_t *b, Py_ssize_t *last, int *died)
{
    const int32_t *t = d->t;
    const unsigned char *c = d->c, *p = d->p;
    const uint32_t lim = (uint32_t)d->lim;
    uint32_t s[WAYS]; /* unsigned: a state indexes the table without a sign extension per byte (~12%
                       * faster on an smaps record table); entries and limits are >= 0 (`check`, run's
                       * arguments), so the values are the same */
    Py_ssize_t pos[WAYS], n = b[1] - b[0], j;
    int k, alive = 1;

    for (k = 0; k < WAYS; k++) {
        s[k] = (uint32_t)first[k];
        pos[k] = b[k];
        last[k] = b[k];
        if (b[k + 1] - b[k] < n)
            n = b[k + 1] - b[k];
    }
    for (j = 0; j < n && alive; j++) {
        int hit = 0;
        for (k = 0; k < WAYS; k++) {
            s[k] = (uint32_t)t[s[k] + c[p[pos[k] + j]]];
            hit |= s[k] < lim;
        }
        if (hit) {
            for (k = 0; k < WAYS; k++) {
                if (s[k] == 0)
                    alive = 0;
                else if (s[k] < lim)
                    last[k] = pos[k] + j + 1;
            }
        }
    }
    for (k = 0; k < WAYS; k++) {
        Py_ssize_t from = pos[k] + j;
        if (s[k] == 0) {
            died[k] = 1;
            continue;
        }
        Py_ssize_t more = run_one(d, (int32_t)s[k], from, b[k + 1], &died[k]);
        if (more > from)
            last[k] = more;
    }
}

/* The end of the chain of records from START (in state S; a record starts in NL after a newline),
 * as one stream would find it: streams after the first count only when the one before ended a
 * record exactly where they start; else the rest is run from where it stopped. */
static Py_ssize_t
run_all(const Dfa *d, int32_t s, int32_t nl, Py_ssize_t start, Py_ssize_t stop, int *died)
{
    Py_ssize_t b[WAYS + 1], last[WAYS];
    int32_t first[WAYS];
    int dead[WAYS], k;

    if (stop - start < SPLIT_MIN)
        return run_one(d, s, start, stop, died);
    b[0] = start;
    b[WAYS] = stop;
    first[0] = s;
    for (k = 1; k < WAYS; k++) {
        b[k] = split_near(d, nl, start + (stop - start) / WAYS * k, b[k - 1], stop);
        if (b[k] < 0)
            return run_one(d, s, start, stop, died);
        first[k] = nl;
    }
    run_streams(d, first, b, last, dead);
    for (k = 0; k < WAYS; k++) {
        if (dead[k]) {
            *died = 1;
            return last[k];
        }
        if (last[k] != b[k + 1] && k + 1 < WAYS)
            return run_one(d, last[k] == b[k] && k == 0 ? s : nl, last[k], stop, died);
    }
    *died = 0;
    return last[WAYS - 1];
}

typedef struct {
    const Dfa *d;
    int32_t s, nl;
    Py_ssize_t start, stop, last;
    int died;
} Part;

static void *
run_part(void *arg)
{
    Part *q = (Part *)arg;

    q->last = run_all(q->d, q->s, q->nl, q->start, q->stop, &q->died);
    return NULL;
}

/* run_all over two halves, the second in a thread of its own when there are two CPUs or more:
 * the second half counts only when the first ended a record exactly where it starts. */
static Py_ssize_t
run_halves(const Dfa *d, int32_t s, int32_t nl, Py_ssize_t start, Py_ssize_t stop, int *died)
{
    Part second;
    pthread_t thread;
    Py_ssize_t mid, last;
    int first_died;

    if (stop - start < THREAD_MIN || sysconf(_SC_NPROCESSORS_ONLN) < 2)
        return run_all(d, s, nl, start, stop, died);
    mid = split_near(d, nl, start + (stop - start) / 2, start, stop);
    if (mid < 0)
        return run_all(d, s, nl, start, stop, died);
    second.d = d;
    second.s = second.nl = nl;
    second.start = mid;
    second.stop = stop;
    if (pthread_create(&thread, NULL, run_part, &second) != 0)
        return run_all(d, s, nl, start, stop, died);
    last = run_all(d, s, nl, start, mid, &first_died);
    pthread_join(thread, NULL);
    if (first_died) {
        *died = 1;
        return last;
    }
    if (last == mid) {
        *died = second.died;
        return second.last;
    }
    return run_all(d, last == start ? s : nl, nl, last, stop, died);
}

/* The newlines in P[0:N] (a loop the compiler vectorizes: bytes.count is several times slower). */
static Py_ssize_t
count_newlines(const unsigned char *p, Py_ssize_t n)
{
    Py_ssize_t i, lines = 0;

    for (i = 0; i < n; i++)
        lines += p[i] == '\n';
    return lines;
}

static PyObject *
records_run(PyObject *self, PyObject *args)
{
    Py_buffer table, classes, data;
    Py_ssize_t width, state, nlstate, limit, start, stop, last, n, lines;
    int died;
    Dfa d;

    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*nnnny*nn", &table, &classes, &width, &state, &nlstate, &limit, &data,
                          &start, &stop))
        return NULL;
    n = table.len / (Py_ssize_t)sizeof(int32_t);
    if (start < 0 || stop > data.len || start > stop || classes.len != 256 || width <= 0 || state < 0
        || state % width || state > n - width || nlstate < 0 || nlstate % width || nlstate > n - width
        || limit < 0 || limit > INT32_MAX) {
        PyBuffer_Release(&table);
        PyBuffer_Release(&classes);
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_ValueError, "record run out of bounds");
        return NULL;
    }
    d.t = (const int32_t *)table.buf;
    d.c = (const unsigned char *)classes.buf;
    d.p = (const unsigned char *)data.buf;
    d.lim = (int32_t)limit;
    Py_BEGIN_ALLOW_THREADS
    last = run_halves(&d, (int32_t)state, (int32_t)nlstate, start, stop, &died);
    lines = count_newlines(d.p + start, last - start);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&table);
    PyBuffer_Release(&classes);
    PyBuffer_Release(&data);
    return Py_BuildValue("nOn", last, died ? Py_True : Py_False, lines);
}

/* The key of the text P[A:B] as lookahead.key_text gives it: blanks stripped, then "-:/" at its
 * start, then spaces. Returns the key's length; *from is where it starts. */
static Py_ssize_t
key_text(const unsigned char *p, Py_ssize_t a, Py_ssize_t b, Py_ssize_t *from)
{
    while (a < b && (p[a] == ' ' || p[a] == '\t'))
        a++;
    while (b > a && (p[b - 1] == ' ' || p[b - 1] == '\t'))
        b--;
    while (a < b && (p[a] == '-' || p[a] == ':' || p[a] == '/'))
        a++;
    while (a < b && p[a] == ' ')
        a++;
    while (b > a && p[b - 1] == ' ')
        b--;
    *from = a;
    return b - a;
}

static PyObject *
records_line_keys(PyObject *self, PyObject *args)
{
    Py_buffer data;
    Py_ssize_t start, stop, i, from, n, o = 0;
    int stop_byte;
    PyObject *out;
    unsigned char *q;

    (void)self;
    if (!PyArg_ParseTuple(args, "y*nni", &data, &start, &stop, &stop_byte))
        return NULL;
    if (start < 0 || stop > data.len || start > stop || stop_byte < 0 || stop_byte > 255 || stop_byte == '\n') {
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_ValueError, "line keys out of bounds");
        return NULL;
    }
    out = PyBytes_FromStringAndSize(NULL, stop - start); /* a key and its newline are no longer than its line */
    if (out == NULL) {
        PyBuffer_Release(&data);
        return NULL;
    }
    q = (unsigned char *)PyBytes_AS_STRING(out);
    const unsigned char *p = (const unsigned char *)data.buf;
    Py_BEGIN_ALLOW_THREADS
    for (i = start; i < stop;) {
        const unsigned char *nl = memchr(p + i, '\n', (size_t)(stop - i));
        if (nl == NULL)
            break;
        Py_ssize_t end = nl - p;
        const unsigned char *at = memchr(p + i, stop_byte, (size_t)(end - i));
        if (at != NULL) {
            n = key_text(p, i, at - p, &from);
            memcpy(q + o, p + from, (size_t)n);
            o += n;
            q[o++] = '\n';
        }
        i = end + 1;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    if (_PyBytes_Resize(&out, o) < 0)
        return NULL;
    return out;
}

#define MAX_PROBES 1024 /* a longer probe (keys made to collide) gives the answer back to Python */
#define AHEAD 16         /* keys whose slot is fetched ahead: a set of 100,000 keys outgrows the L2 cache */

/* The hash of the key P[0:N]: FNV-1a, finalized (FNV's low bits mix poorly: keys alike but for a
 * digit). */
static uint64_t
key_hash(const unsigned char *p, Py_ssize_t n)
{
    uint64_t h = 1469598103934665603ULL;

    for (Py_ssize_t j = 0; j < n; j++)
        h = (h ^ p[j]) * 1099511628211ULL;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 33);
}

/* The keys of a string of lines, each ended by a newline: where each starts and its hash. */
typedef struct {
    const unsigned char *p;
    Py_ssize_t count;
    uint32_t *start; /* count + 1 offsets: key i is p[start[i]:start[i + 1] - 1] */
    uint64_t *hash;
} Keys;

static int
keys_of(Keys *k, const unsigned char *p, Py_ssize_t n)
{
    Py_ssize_t lines = 0, i, at = 0;
    const unsigned char *nl;

    for (i = 0; i < n; i++)
        lines += p[i] == '\n';
    k->p = p;
    k->count = lines;
    k->start = PyMem_Malloc(sizeof(uint32_t) * (size_t)(lines + 1));
    k->hash = PyMem_Malloc(sizeof(uint64_t) * (size_t)(lines + 1));
    if (k->start == NULL || k->hash == NULL)
        return -1;
    for (i = 0; i < lines; i++) {
        nl = memchr(p + at, '\n', (size_t)(n - at));
        k->start[i] = (uint32_t)at;
        k->hash[i] = key_hash(p + at, nl - p - at);
        at = nl - p + 1;
    }
    k->start[lines] = (uint32_t)at;
    return 0;
}

/* A set of keys of K: open addressing, each slot the key's high hash bits and its index + 1 (0:
 * empty), so that a probe reads the key itself only when those bits agree. */
typedef struct {
    const Keys *k;
    uint64_t *slots;
    size_t mask;
} KeySet;

static int
set_init(KeySet *s, const Keys *k)
{
    size_t size = 16;

    while (size < (size_t)k->count * 3 / 2)
        size <<= 1;
    s->k = k;
    s->mask = size - 1;
    s->slots = PyMem_Calloc(size, sizeof(uint64_t));
    return s->slots == NULL ? -1 : 0;
}

/* Is the key P[0:N] with hash H in S: 1 yes, 0 no (then added as INDEX when ADD), -1 past
 * MAX_PROBES. */
static int
set_find(KeySet *s, const unsigned char *p, Py_ssize_t n, uint64_t h, Py_ssize_t index, int add)
{
    size_t at = (size_t)h & s->mask;
    uint64_t high = h & 0xffffffff00000000ULL;
    int probes;

    for (probes = 0; probes < MAX_PROBES; probes++, at = (at + 1) & s->mask) {
        uint64_t slot = s->slots[at];
        if (slot == 0) {
            if (add)
                s->slots[at] = high | (uint64_t)(index + 1);
            return 0;
        }
        if ((slot & 0xffffffff00000000ULL) != high)
            continue;
        Py_ssize_t o = (Py_ssize_t)(slot & 0xffffffffULL) - 1;
        const Keys *k = s->k;
        if (k->start[o + 1] - 1 - k->start[o] == n && memcmp(k->p + k->start[o], p, (size_t)n) == 0)
            return 1;
    }
    return -1;
}

/* Each distinct key of S's keys into S; FIRST[i] tells whether key i was its first occurrence.
 * -1 past MAX_PROBES. */
static int
fill_set(KeySet *s, char *first)
{
    const Keys *k = s->k;

    for (Py_ssize_t i = 0; i < k->count; i++) {
        if (i + AHEAD < k->count)
            __builtin_prefetch(&s->slots[(size_t)k->hash[i + AHEAD] & s->mask]);
        int there = set_find(s, k->p + k->start[i], k->start[i + 1] - 1 - k->start[i], k->hash[i], i, 1);
        if (there < 0)
            return -1;
        first[i] = there == 0;
    }
    return 0;
}

/* (how many distinct keys of K the set OTHER lacks, a list of the first SHOWN of them), in K's
 * order; None past MAX_PROBES; NULL on error. */
static PyObject *
absent_from(const Keys *k, const char *first, KeySet *other, Py_ssize_t shown)
{
    Py_ssize_t count = 0;
    PyObject *listed = PyList_New(0), *out;

    if (listed == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < k->count; i++) {
        if (i + AHEAD < k->count)
            __builtin_prefetch(&other->slots[(size_t)k->hash[i + AHEAD] & other->mask]);
        if (!first[i])
            continue;
        const unsigned char *p = k->p + k->start[i];
        Py_ssize_t n = k->start[i + 1] - 1 - k->start[i];
        int there = set_find(other, p, n, k->hash[i], 0, 0);
        if (there < 0) {
            Py_DECREF(listed);
            return Py_NewRef(Py_None);
        }
        if (there == 0 && ++count <= shown) {
            PyObject *key = PyBytes_FromStringAndSize((const char *)p, n);
            if (key == NULL || PyList_Append(listed, key) < 0) {
                Py_XDECREF(key);
                Py_DECREF(listed);
                return NULL;
            }
            Py_DECREF(key);
        }
    }
    out = Py_BuildValue("nO", count, listed);
    Py_DECREF(listed);
    return out;
}

static PyObject *
records_keys_only_in(PyObject *self, PyObject *args)
{
    Py_buffer a, b;
    Py_ssize_t shown;
    Keys ka = {0}, kb = {0};
    KeySet in_a = {0}, in_b = {0};
    char *first_a = NULL, *first_b = NULL;
    PyObject *only_a = NULL, *only_b = NULL, *result = NULL;

    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*n", &a, &b, &shown))
        return NULL;
    if (a.len >= INT32_MAX || b.len >= INT32_MAX || shown < 0 || (a.len && ((const char *)a.buf)[a.len - 1] != '\n')
        || (b.len && ((const char *)b.buf)[b.len - 1] != '\n')) {
        PyErr_SetString(PyExc_ValueError, "keys: lines, each ended by a newline");
        goto done;
    }
    if (keys_of(&ka, a.buf, a.len) < 0 || keys_of(&kb, b.buf, b.len) < 0
        || (first_a = PyMem_Malloc((size_t)ka.count + 1)) == NULL || (first_b = PyMem_Malloc((size_t)kb.count + 1)) == NULL
        || set_init(&in_a, &ka) < 0 || set_init(&in_b, &kb) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    if (fill_set(&in_a, first_a) < 0 || fill_set(&in_b, first_b) < 0) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    only_a = absent_from(&ka, first_a, &in_b, shown);
    only_b = only_a == NULL || only_a == Py_None ? NULL : absent_from(&kb, first_b, &in_a, shown);
    if (only_a == Py_None || only_b == Py_None)
        result = Py_NewRef(Py_None);
    else if (only_a != NULL && only_b != NULL)
        result = PyTuple_Pack(2, only_a, only_b);
done:
    Py_XDECREF(only_a);
    Py_XDECREF(only_b);
    PyMem_Free(ka.start);
    PyMem_Free(ka.hash);
    PyMem_Free(kb.start);
    PyMem_Free(kb.hash);
    PyMem_Free(first_a);
    PyMem_Free(first_b);
    PyMem_Free(in_a.slots);
    PyMem_Free(in_b.slots);
    PyBuffer_Release(&a);
    PyBuffer_Release(&b);
    return result;
}

static PyMethodDef records_methods[] = {
    {"run", records_run, METH_VARARGS,
     "run(table, classes, width, state, nlstate, limit, data, start, stop) -> (end of the last record, died, newlines before it)"},
    {"check", records_check, METH_VARARGS,
     "check(table, classes, width) -> whether every entry is a row offset inside the table"},
    {"line_keys", records_line_keys, METH_VARARGS,
     "line_keys(data, start, stop, stop_byte) -> the key of each line (key_text of the text before its first "
     "stop_byte), each followed by a newline"},
    {"keys_only_in", records_keys_only_in, METH_VARARGS,
     "keys_only_in(a, b, shown) -> ((distinct lines of a not in b, the first `shown` of them), the same of b), "
     "or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef records_module = {
    PyModuleDef_HEAD_INIT, "crecords", "Record DFAs run over a buffer (fmtcheck.layout.native).", -1,
    records_methods, NULL, NULL, NULL, NULL,
};

/* API: 2 since line_keys and keys_only_in (both ways) exist; native.py checks it, so that an
 * extension built from older sources (a checkout whose build is stale) is not asked for them. */
PyMODINIT_FUNC
PyInit_crecords(void)
{
    PyObject *m = PyModule_Create(&records_module);

    if (m != NULL && PyModule_AddIntConstant(m, "API", 2) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
