#ifndef ALERTD_CPOSTGRESQL_SHIM_H
#define ALERTD_CPOSTGRESQL_SHIM_H
#include <libpq-fe.h>
#endif
