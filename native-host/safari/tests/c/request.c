/*
 * request: Laika's C ABI from C, as Safari's containing app uses it.
 *
 *   request '{"id": 1, "method": "host.info"}' ...   answers each argument
 *   request < requests.jsonl                          answers each line of standard input
 *
 * Each reply is printed on a line of its own and flushed at once, so a program can hold a
 * conversation with it (start a summary, then poll it). Blank input lines are skipped.
 * Exits 1 if laika_request ever returns NULL.
 */

#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "laika.h"

static int answer(const char *request) {
    char *reply = laika_request(request);
    if (reply == NULL) {
        fprintf(stderr, "request: laika_request returned NULL\n");
        return 1;
    }
    printf("%s\n", reply);
    fflush(stdout);
    laika_free_string(reply);
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            if (answer(argv[i]) != 0) {
                return 1;
            }
        }
        return 0;
    }
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    int status = 0;
    while (status == 0 && (length = getline(&line, &capacity, stdin)) != -1) {
        while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r')) {
            line[--length] = '\0';
        }
        if (length == 0) {
            continue;
        }
        status = answer(line);
    }
    free(line);
    return status;
}
