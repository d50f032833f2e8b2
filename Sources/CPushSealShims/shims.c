#include "CPushSealShims.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

/* The libcurl functions PushSeal uses, resolved once by CPushSealShims_curl_load. */
static struct {
    CURLcode (*global_init)(long);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded = 0;

#define RESOLVE(field, symbol) \
    if ((*(void **)(&curl.field) = dlsym(library, symbol)) == NULL) return;

static void load_library(void) {
    const char *names[] = {"libcurl.so.4", "libcurl.so", "libcurl.4.dylib", "libcurl.dylib"};
    void *library = NULL;
    for (size_t index = 0; library == NULL && index < sizeof names / sizeof names[0]; index++) {
        library = dlopen(names[index], RTLD_NOW | RTLD_LOCAL);
    }
    if (library == NULL) return;
    RESOLVE(global_init, "curl_global_init")
    RESOLVE(multi_init, "curl_multi_init")
    RESOLVE(multi_cleanup, "curl_multi_cleanup")
    RESOLVE(multi_add_handle, "curl_multi_add_handle")
    RESOLVE(multi_remove_handle, "curl_multi_remove_handle")
    RESOLVE(multi_perform, "curl_multi_perform")
    RESOLVE(multi_poll, "curl_multi_poll")
    RESOLVE(multi_info_read, "curl_multi_info_read")
    RESOLVE(multi_setopt, "curl_multi_setopt")
    RESOLVE(easy_init, "curl_easy_init")
    RESOLVE(easy_cleanup, "curl_easy_cleanup")
    RESOLVE(easy_strerror, "curl_easy_strerror")
    RESOLVE(slist_append, "curl_slist_append")
    RESOLVE(slist_free_all, "curl_slist_free_all")
    RESOLVE(easy_setopt, "curl_easy_setopt")
    RESOLVE(easy_getinfo, "curl_easy_getinfo")
    loaded = 1;
}

int CPushSealShims_curl_load(void) {
    pthread_once(&load_once, load_library);
    return loaded;
}

static pthread_once_t ready_once = PTHREAD_ONCE_INIT;
static int ready = 0;

static void make_ready(void) {
    ready = CPushSealShims_curl_load() == 1 && curl.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
}

int CPushSealShims_curl_ready(void) {
    pthread_once(&ready_once, make_ready);
    return ready;
}

CURLM *CPushSealShims_curl_multi_init(void) { return curl.multi_init(); }
CURLMcode CPushSealShims_curl_multi_cleanup(CURLM *multi) { return curl.multi_cleanup(multi); }
CURLMcode CPushSealShims_curl_multi_add_handle(CURLM *multi, CURL *easy) { return curl.multi_add_handle(multi, easy); }
CURLMcode CPushSealShims_curl_multi_remove_handle(CURLM *multi, CURL *easy) {
    return curl.multi_remove_handle(multi, easy);
}
CURLMcode CPushSealShims_curl_multi_perform(CURLM *multi, int *running) { return curl.multi_perform(multi, running); }
CURLMcode CPushSealShims_curl_multi_poll(CURLM *multi, int timeout_ms) {
    return curl.multi_poll(multi, NULL, 0, timeout_ms, NULL);
}
CURLMsg *CPushSealShims_curl_multi_info_read(CURLM *multi, int *queued) { return curl.multi_info_read(multi, queued); }
CURLMcode CPushSealShims_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl.multi_setopt(multi, option, value);
}
CURL *CPushSealShims_curl_easy_init(void) { return curl.easy_init(); }
void CPushSealShims_curl_easy_cleanup(CURL *easy) { curl.easy_cleanup(easy); }
const char *CPushSealShims_curl_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }
struct curl_slist *CPushSealShims_curl_slist_append(struct curl_slist *list, const char *text) {
    return curl.slist_append(list, text);
}
void CPushSealShims_curl_slist_free_all(struct curl_slist *list) { curl.slist_free_all(list); }
CURLcode CPushSealShims_curl_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl.easy_setopt(easy, option, value);
}
CURLcode CPushSealShims_curl_easy_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl.easy_setopt(easy, option, value);
}
CURLcode CPushSealShims_curl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value) {
    return curl.easy_setopt(easy, option, value);
}
CURLcode CPushSealShims_curl_easy_setopt_size(CURL *easy, CURLoption option, curl_off_t value) {
    return curl.easy_setopt(easy, option, value);
}
CURLcode CPushSealShims_curl_easy_setopt_callback(CURL *easy, CURLoption option, CPushSealShims_data_callback value) {
    return curl.easy_setopt(easy, option, value);
}
CURLcode CPushSealShims_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl.easy_getinfo(easy, info, value);
}
