#ifndef PUSHSEAL_CSQLITE_SHIM_H
#define PUSHSEAL_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
