// libFuzzer's entry for programs that have their own main (SwiftPM links every executable
// with `--defsym main=<module>_main`, so libFuzzer's main cannot be the program's).
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
