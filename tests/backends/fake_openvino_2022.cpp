// C linkage: these stand in for a C library looked up with dlsym.
extern "C" {
// Answers the version query like OpenVINO 2022.1 and has nothing else: npusim must refuse it
// with a version-mismatch reason before looking for the rest of the C API.
typedef struct {
  const char* build_number;
  const char* description;
} fake_version;

int ov_get_openvino_version(fake_version* v) {
  v->build_number = "2022.1.0-7019-cdb9bec7210-releases/2022/1";
  v->description = "OpenVINO Runtime";
  return 0;
}

void ov_version_free(fake_version*) {}
}
