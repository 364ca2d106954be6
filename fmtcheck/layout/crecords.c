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
    const int32_t lim = d->lim;
    Py_ssize_t i, last = start;

    for (i = start; i < stop; i++) {
        s = t[s + c[p[i]]];
        if (s < lim) {
            if (s == 0)
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
    const int32_t lim = d->lim;
    int32_t s[WAYS];
    Py_ssize_t pos[WAYS], n = b[1] - b[0], j;
    int k, alive = 1;

    for (k = 0; k < WAYS; k++) {
        s[k] = first[k];
        pos[k] = b[k];
        last[k] = b[k];
        if (b[k + 1] - b[k] < n)
            n = b[k + 1] - b[k];
    }
    for (j = 0; j < n && alive; j++) {
        int hit = 0;
        for (k = 0; k < WAYS; k++) {
            s[k] = t[s[k] + c[p[pos[k] + j]]];
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
        Py_ssize_t more = run_one(d, s[k], from, b[k + 1], &died[k]);
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

typedef struct {
    const unsigned char *p;
    Py_ssize_t n;
    uint64_t h;
} Key;

typedef struct {
    Key *keys;
    Py_ssize_t count;
    int32_t *slots; /* index + 1 into keys, 0 for empty */
    size_t mask;
} KeySet;

/* The lines of P[0:N] (each ended by a newline) as keys with their FNV-1a hashes. */
static Key *
split_keys(const unsigned char *p, Py_ssize_t n, Py_ssize_t *count)
{
    Py_ssize_t lines = 0, i, k = 0, from = 0;
    Key *keys;

    for (i = 0; i < n; i++)
        lines += p[i] == '\n';
    keys = PyMem_Malloc(sizeof(Key) * (size_t)(lines ? lines : 1));
    if (keys == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        if (p[i] != '\n')
            continue;
        uint64_t h = 1469598103934665603ULL;
        for (Py_ssize_t j = from; j < i; j++)
            h = (h ^ p[j]) * 1099511628211ULL;
        keys[k].p = p + from;
        keys[k].n = i - from;
        keys[k].h = h;
        k++;
        from = i + 1;
    }
    *count = k;
    return keys;
}

static int
set_init(KeySet *s, Key *keys, Py_ssize_t count)
{
    size_t size = 16;

    while (size < (size_t)count * 2)
        size <<= 1;
    s->keys = keys;
    s->count = 0;
    s->mask = size - 1;
    s->slots = PyMem_Calloc(size, sizeof(int32_t));
    return s->slots == NULL ? -1 : 0;
}

/* Is KEY in S: 1 yes, 0 no (added when ADD), -1 past MAX_PROBES. */
static int
set_find(KeySet *s, const Key *key, int32_t index, int add)
{
    size_t at = (size_t)key->h & s->mask;
    int probes;

    for (probes = 0; probes < MAX_PROBES; probes++, at = (at + 1) & s->mask) {
        int32_t slot = s->slots[at];
        if (slot == 0) {
            if (add)
                s->slots[at] = index + 1;
            return 0;
        }
        const Key *o = &s->keys[slot - 1];
        if (o->h == key->h && o->n == key->n && memcmp(o->p, key->p, (size_t)key->n) == 0)
            return 1;
    }
    return -1;
}

static PyObject *
records_keys_only_in(PyObject *self, PyObject *args)
{
    Py_buffer a, b;
    Py_ssize_t shown, na = 0, nb = 0, i, count = 0;
    Key *ka = NULL, *kb = NULL;
    KeySet in_b = {0}, seen = {0};
    PyObject *first = NULL, *result = NULL;
    int gave_up = 0;

    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*n", &a, &b, &shown))
        return NULL;
    if (a.len > INT32_MAX / 2 || b.len > INT32_MAX / 2 || shown < 0) {
        PyErr_SetString(PyExc_ValueError, "keys out of bounds");
        goto done;
    }
    ka = split_keys(a.buf, a.len, &na);
    kb = split_keys(b.buf, b.len, &nb);
    first = PyList_New(0);
    if (ka == NULL || kb == NULL || first == NULL || set_init(&in_b, kb, nb) < 0 || set_init(&seen, ka, na) < 0) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    for (i = 0; i < nb && !gave_up; i++)
        gave_up = set_find(&in_b, &kb[i], (int32_t)i, 1) < 0;
    for (i = 0; i < na && !gave_up; i++) {
        int there = set_find(&in_b, &ka[i], 0, 0);
        if (there == 0)
            there = set_find(&seen, &ka[i], (int32_t)i, 1);
        if (there < 0)
            gave_up = 1;
        else if (there == 0 && ++count <= shown) {
            PyObject *key = PyBytes_FromStringAndSize((const char *)ka[i].p, ka[i].n);
            if (key == NULL || PyList_Append(first, key) < 0) {
                Py_XDECREF(key);
                goto done;
            }
            Py_DECREF(key);
        }
    }
    if (gave_up) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    result = Py_BuildValue("nO", count, first);
done:
    Py_XDECREF(first);
    PyMem_Free(ka);
    PyMem_Free(kb);
    PyMem_Free(in_b.slots);
    PyMem_Free(seen.slots);
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
     "keys_only_in(a, b, shown) -> (distinct lines of a not in b, the first `shown` of them), or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef records_module = {
    PyModuleDef_HEAD_INIT, "crecords", "Record DFAs run over a buffer (fmtcheck.layout.native).", -1,
    records_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit_crecords(void)
{
    return PyModule_Create(&records_module);
}
