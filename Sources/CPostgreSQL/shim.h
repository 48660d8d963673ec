#ifndef ALERTD_CPOSTGRESQL_SHIM_H
#define ALERTD_CPOSTGRESQL_SHIM_H
// Through <postgresql/...>: the header's own includes are found beside it,
// so no include path (and no pkg-config, whose -lpq would link libpq) is needed.
#include <postgresql/libpq-fe.h>
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

// libpq is loaded on first use with dlopen, not linked. With its TLS,
// Kerberos, LDAP and SASL libraries it is 14 shared objects, about 2.7 MB
// resident in every alertd, while only a daemon whose store is PostgreSQL
// calls it (measured in /proc/<pid>/smaps: an idle SQLite daemon held them
// all). Swift calls the `alertd_pq_*` functions below, which go through this
// table; `alertd_pq_load()` fills it once.
struct alertd_pq_functions {
    PGconn *(*connectdbParams)(const char *const *, const char *const *, int);
    void (*finish)(PGconn *);
    ConnStatusType (*status)(const PGconn *);
    int (*socket)(const PGconn *);
    char *(*errorMessage)(const PGconn *);
    PQnoticeProcessor (*setNoticeProcessor)(PGconn *, PQnoticeProcessor, void *);
    PGresult *(*exec)(PGconn *, const char *);
    PGresult *(*execParams)(PGconn *, const char *, int, const Oid *, const char *const *, const int *, const int *, int);
    int (*consumeInput)(PGconn *);
    PGnotify *(*notifies)(PGconn *);
    void (*freemem)(void *);
    void (*clear)(PGresult *);
    ExecStatusType (*resultStatus)(const PGresult *);
    int (*ntuples)(const PGresult *);
    int (*nfields)(const PGresult *);
    int (*getisnull)(const PGresult *, int, int);
    char *(*getvalue)(const PGresult *, int, int);
    char *(*cmdTuples)(PGresult *);
    char *(*resultErrorField)(const PGresult *, int);
    char *(*resultErrorMessage)(const PGresult *);
    int (*sendQuery)(PGconn *, const char *);
    int (*sendQueryParams)(PGconn *, const char *, int, const Oid *, const char *const *, const int *, const int *, int);
    PGresult *(*getResult)(PGconn *);
    int (*isBusy)(PGconn *);
    PQconninfoOption *(*conninfoParse)(const char *, char **);
    void (*conninfoFree)(PQconninfoOption *);
};

// Weak, so every Swift file that uses the header shares one table, one once-flag and one outcome.
__attribute__((weak)) struct alertd_pq_functions alertd_pq_table = {0};
__attribute__((weak)) pthread_once_t alertd_pq_table_once = PTHREAD_ONCE_INIT;
__attribute__((weak)) char alertd_pq_load_error[512] = {0};

static inline void alertd_pq_fill(void) {
    // The runtime library of Debian's libpq5 (the -dev package links it too).
    void *library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(alertd_pq_load_error, sizeof alertd_pq_load_error,
                           "cannot load libpq (%s); install libpq5 (apt-get install libpq5)", reason ? reason : "libpq.so.5");
        return;
    }
    struct alertd_pq_functions *t = &alertd_pq_table;
#define ALERTD_PQ_SYMBOL(field, name) \
    if (!(*(void **)&t->field = dlsym(library, name))) { \
        snprintf(alertd_pq_load_error, sizeof alertd_pq_load_error, \
                           "cannot load libpq: libpq.so.5 has no %s; alertd needs libpq 10 or later", name); \
        return; \
    }
    ALERTD_PQ_SYMBOL(connectdbParams, "PQconnectdbParams")
    ALERTD_PQ_SYMBOL(finish, "PQfinish")
    ALERTD_PQ_SYMBOL(status, "PQstatus")
    ALERTD_PQ_SYMBOL(socket, "PQsocket")
    ALERTD_PQ_SYMBOL(errorMessage, "PQerrorMessage")
    ALERTD_PQ_SYMBOL(setNoticeProcessor, "PQsetNoticeProcessor")
    ALERTD_PQ_SYMBOL(exec, "PQexec")
    ALERTD_PQ_SYMBOL(execParams, "PQexecParams")
    ALERTD_PQ_SYMBOL(consumeInput, "PQconsumeInput")
    ALERTD_PQ_SYMBOL(notifies, "PQnotifies")
    ALERTD_PQ_SYMBOL(freemem, "PQfreemem")
    ALERTD_PQ_SYMBOL(clear, "PQclear")
    ALERTD_PQ_SYMBOL(resultStatus, "PQresultStatus")
    ALERTD_PQ_SYMBOL(ntuples, "PQntuples")
    ALERTD_PQ_SYMBOL(nfields, "PQnfields")
    ALERTD_PQ_SYMBOL(getisnull, "PQgetisnull")
    ALERTD_PQ_SYMBOL(getvalue, "PQgetvalue")
    ALERTD_PQ_SYMBOL(cmdTuples, "PQcmdTuples")
    ALERTD_PQ_SYMBOL(resultErrorField, "PQresultErrorField")
    ALERTD_PQ_SYMBOL(resultErrorMessage, "PQresultErrorMessage")
    ALERTD_PQ_SYMBOL(sendQuery, "PQsendQuery")
    ALERTD_PQ_SYMBOL(sendQueryParams, "PQsendQueryParams")
    ALERTD_PQ_SYMBOL(getResult, "PQgetResult")
    ALERTD_PQ_SYMBOL(isBusy, "PQisBusy")
    ALERTD_PQ_SYMBOL(conninfoParse, "PQconninfoParse")
    ALERTD_PQ_SYMBOL(conninfoFree, "PQconninfoFree")
#undef ALERTD_PQ_SYMBOL
}

/// Loads libpq once; NULL when it is ready, else why it cannot be used (a
/// sentence for the operator). Call before any other `alertd_pq_*` function.
static inline const char *alertd_pq_load(void) {
    pthread_once(&alertd_pq_table_once, alertd_pq_fill);
    return alertd_pq_load_error[0] ? alertd_pq_load_error : NULL;
}

static inline PGconn *alertd_pq_connectdb_params(const char *const *k, const char *const *v, int expand) {
    return alertd_pq_table.connectdbParams(k, v, expand);
}
static inline void alertd_pq_finish(PGconn *c) { alertd_pq_table.finish(c); }
static inline ConnStatusType alertd_pq_status(const PGconn *c) { return alertd_pq_table.status(c); }
static inline int alertd_pq_socket(const PGconn *c) { return alertd_pq_table.socket(c); }
static inline char *alertd_pq_error_message(const PGconn *c) { return alertd_pq_table.errorMessage(c); }
static inline PQnoticeProcessor alertd_pq_set_notice_processor(PGconn *c, PQnoticeProcessor p, void *arg) {
    return alertd_pq_table.setNoticeProcessor(c, p, arg);
}
static inline PGresult *alertd_pq_exec(PGconn *c, const char *sql) { return alertd_pq_table.exec(c, sql); }
static inline PGresult *alertd_pq_exec_params(PGconn *c, const char *sql, int n, const Oid *types, const char *const *values,
                                              const int *lengths, const int *formats, int resultFormat) {
    return alertd_pq_table.execParams(c, sql, n, types, values, lengths, formats, resultFormat);
}
/// PQexec or PQexecParams (`params` NULL: PQexec, which may run several
/// statements), but giving up once the server has sent nothing for
/// `silence_ms`: a server that is stopped or cut off without a reset leaves
/// the connection open and silent, and PQexec would wait for as long as
/// that lasts. Returns the last result (stopping at a COPY, as PQexec
/// does); NULL with `*timed_out` set when the server went silent (the
/// connection is then unusable: the caller closes it), NULL alone when
/// sending or reading failed.
static inline PGresult *alertd_pq_exec_within(PGconn *c, const char *sql, int n, const char *const *params, int silence_ms,
                                              int *timed_out) {
    *timed_out = 0;
    int sent = params ? alertd_pq_table.sendQueryParams(c, sql, n, NULL, params, NULL, NULL, 0) : alertd_pq_table.sendQuery(c, sql);
    if (!sent) return NULL;
    struct timespec since, now;
    clock_gettime(CLOCK_MONOTONIC, &since);
    PGresult *last = NULL;
    for (;;) {
        while (!alertd_pq_table.isBusy(c)) {
            PGresult *r = alertd_pq_table.getResult(c);
            if (!r) return last;
            if (last) alertd_pq_table.clear(last);
            last = r;
            ExecStatusType status = alertd_pq_table.resultStatus(r);
            if (status == PGRES_COPY_IN || status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH) return last;
            if (alertd_pq_table.status(c) == CONNECTION_BAD) return last;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed = (now.tv_sec - since.tv_sec) * 1000 + (now.tv_nsec - since.tv_nsec) / 1000000;
        if (elapsed >= silence_ms) {
            *timed_out = 1;
            break;
        }
        struct pollfd fd = {.fd = alertd_pq_table.socket(c), .events = POLLIN};
        int ready = poll(&fd, 1, (int)(silence_ms - elapsed));
        if ((ready < 0 && errno != EINTR) || (ready > 0 && !alertd_pq_table.consumeInput(c))) break;
        // Something arrived: a statement that is working (a long result) is not a silent server.
        if (ready > 0) clock_gettime(CLOCK_MONOTONIC, &since);
    }
    if (last) alertd_pq_table.clear(last);
    return NULL;
}
static inline int alertd_pq_consume_input(PGconn *c) { return alertd_pq_table.consumeInput(c); }
static inline PGnotify *alertd_pq_notifies(PGconn *c) { return alertd_pq_table.notifies(c); }
static inline void alertd_pq_freemem(void *p) { alertd_pq_table.freemem(p); }

/// 0 when libpq can read `url`; else 1, with libpq's reason in `out` (it
/// may quote the part it could not read).
static inline int alertd_pq_url_problem(const char *url, char *out, size_t size) {
    char *reason = NULL;
    PQconninfoOption *options = alertd_pq_table.conninfoParse(url, &reason);
    if (options) {
        alertd_pq_table.conninfoFree(options);
        return 0;
    }
    snprintf(out, size, "%s", reason ? reason : "out of memory");
    if (reason) alertd_pq_table.freemem(reason);
    return 1;
}
static inline void alertd_pq_clear(PGresult *r) { alertd_pq_table.clear(r); }
static inline ExecStatusType alertd_pq_result_status(const PGresult *r) { return alertd_pq_table.resultStatus(r); }
static inline int alertd_pq_ntuples(const PGresult *r) { return alertd_pq_table.ntuples(r); }
static inline int alertd_pq_nfields(const PGresult *r) { return alertd_pq_table.nfields(r); }
static inline int alertd_pq_getisnull(const PGresult *r, int row, int column) { return alertd_pq_table.getisnull(r, row, column); }
static inline char *alertd_pq_getvalue(const PGresult *r, int row, int column) { return alertd_pq_table.getvalue(r, row, column); }
static inline char *alertd_pq_cmd_tuples(PGresult *r) { return alertd_pq_table.cmdTuples(r); }
static inline char *alertd_pq_result_error_field(const PGresult *r, int field) { return alertd_pq_table.resultErrorField(r, field); }
static inline char *alertd_pq_result_error_message(const PGresult *r) { return alertd_pq_table.resultErrorMessage(r); }

#endif
