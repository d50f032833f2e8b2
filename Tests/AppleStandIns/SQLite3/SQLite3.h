// The SDK's SQLite3 module, as scripts/typecheck-apple.sh sees it: Debian's sqlite3.h, plus the
// data-protection open flag that only Apple's SQLite has (documentation: sqlite3.h in Apple's
// SDKs, SQLITE_OPEN_FILEPROTECTION_COMPLETEUNTILFIRSTUSERAUTHENTICATION).
#include <sqlite3.h>
#ifndef SQLITE_OPEN_FILEPROTECTION_COMPLETEUNTILFIRSTUSERAUTHENTICATION
#define SQLITE_OPEN_FILEPROTECTION_COMPLETEUNTILFIRSTUSERAUTHENTICATION 0x00300000
#endif
