// libpq (Debian: libpq-dev), PostgreSQL's client library, under the gateway's PostgreSQL store.
#include <libpq-fe.h>
