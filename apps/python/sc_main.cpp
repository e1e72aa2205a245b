// libsystemc.so refers to sc_main (its own main() calls it), so whatever loads the library
// must define one with C linkage. Python never runs libsystemc's main(): simulate()
// elaborates its own context. The symbol is exported explicitly because pybind11 builds
// extensions with hidden visibility, and the dynamic linker resolves libsystemc's reference
// through the extension's dynamic symbol table.
extern "C" __attribute__((visibility("default"))) int sc_main(int, char**) { return 0; }
