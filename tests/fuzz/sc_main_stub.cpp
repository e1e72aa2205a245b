// libsystemc.so calls sc_main from its own main(); libFuzzer's main() runs instead.
extern "C" int sc_main(int, char**) { return 0; }
