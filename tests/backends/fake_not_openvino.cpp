// C linkage: these stand in for a C library looked up with dlsym.
extern "C" {
// A shared library that loads fine but is not OpenVINO's C library.
int npusim_fake_library_marker() { return 42; }
}
