// Probe: ldmatrix / stmatrix m8n8 .x1/.x2/.x4 (+.trans), b16, on sm_90a.
//
// Shared memory S is a row-major uint16 array S[32][8] (one 16-byte row per
// "matrix row").  Row R = 8*q + r is row r of 8x8 matrix q.  In the canonical
// run thread t (t < 8*num) supplies the address &S[t][0]; i.e. thread 8q+r
// supplies the address of row r of matrix q (threads >= 8*num supply a valid
// but ignored address).  Element code: S[R][c] = R*256 + c (raw 16-bit bits).
//
// ldmatrix record: thread t, slot v (v-th 16-bit element over the destination
//   registers; register j holds slots 2j (low half) and 2j+1 (high half)) held
//   S[row][col]; "matrix" = row/8, "row_in_matrix" = row%8.
// stmatrix record: each thread t puts code t*256+v into slot v of its source
//   registers (same slot numbering); after the store S[row][col] is decoded.
//
// Self-checks: (a) every S element of the addressed matrices is covered exactly
// once; (b) a second run where thread s supplies row P(s)=(5s+3) mod 8*num must
// give exactly the canonical map with row -> P(row) (data follows addresses).
#include "common.h"

__global__ void k_ldmatrix(const int* addr_row, uint32_t* out, int variant) {
  __shared__ alignas(128) uint16_t S[32 * 8];
  int t = threadIdx.x;
  for (int i = t; i < 256; i += 32) S[i] = (uint16_t)((i / 8) * 256 + (i % 8));
  __syncwarp();
  uint32_t a = smem_u32(&S[addr_row[t] * 8]);
  uint32_t r0 = 0xDEADBEEF, r1 = 0xDEADBEEF, r2 = 0xDEADBEEF, r3 = 0xDEADBEEF;
  switch (variant) {
    case 0: asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(a)); break;
    case 1: asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a)); break;
    case 2: asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a)); break;
    case 3: asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(a)); break;
    case 4: asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a)); break;
    case 5: asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a)); break;
  }
  out[t * 4 + 0] = r0; out[t * 4 + 1] = r1; out[t * 4 + 2] = r2; out[t * 4 + 3] = r3;
}

__global__ void k_stmatrix(const int* addr_row, uint16_t* out, int variant) {
  __shared__ alignas(128) uint16_t S[32 * 8];
  int t = threadIdx.x;
  for (int i = t; i < 256; i += 32) S[i] = 0xFFFF;
  __syncwarp();
  uint32_t a = smem_u32(&S[addr_row[t] * 8]);
  uint32_t r[4];
  for (int j = 0; j < 4; ++j) r[j] = (uint32_t)(t * 256 + 2 * j) | ((uint32_t)(t * 256 + 2 * j + 1) << 16);
  switch (variant) {
    case 0: asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(a), "r"(r[0]) : "memory"); break;
    case 1: asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1,%2};" :: "r"(a), "r"(r[0]), "r"(r[1]) : "memory"); break;
    case 2: asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(a), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory"); break;
    case 3: asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" :: "r"(a), "r"(r[0]) : "memory"); break;
    case 4: asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1,%2};" :: "r"(a), "r"(r[0]), "r"(r[1]) : "memory"); break;
    case 5: asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(a), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory"); break;
  }
  __syncwarp();
  for (int i = t; i < 256; i += 32) out[i] = S[i];
}

static const char* NAMES_LD[6] = {
  "ldmatrix.sync.aligned.m8n8.x1.shared.b16", "ldmatrix.sync.aligned.m8n8.x2.shared.b16",
  "ldmatrix.sync.aligned.m8n8.x4.shared.b16", "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16",
  "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"};
static const char* NAMES_ST[6] = {
  "stmatrix.sync.aligned.m8n8.x1.shared.b16", "stmatrix.sync.aligned.m8n8.x2.shared.b16",
  "stmatrix.sync.aligned.m8n8.x4.shared.b16", "stmatrix.sync.aligned.m8n8.x1.trans.shared.b16",
  "stmatrix.sync.aligned.m8n8.x2.trans.shared.b16", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16"};

// PTX ISA documented layout (for comparison only; output is what silicon did).
// Non-trans: thread t, register j (matrix j), half h: row = t/4 of matrix j, col = 2*(t%4)+h.
// Trans:     thread t, register j, half h: element (row = 2*(t%4)+h, col = t/4) of matrix j.
static void doc_map(int variant, int t, int v, int& R, int& c) {
  int j = v / 2, h = v % 2;
  bool trans = variant >= 3;
  int r = trans ? 2 * (t % 4) + h : t / 4;
  c = trans ? t / 4 : 2 * (t % 4) + h;
  R = 8 * j + r;
}

int main(int argc, char** argv) {
  FILE* fl = open_out(argc, argv, "ldmatrix.jsonl");
  FILE* fs = open_out(argc, argv, "stmatrix.jsonl");
  const char* note =
      "S = row-major uint16 S[32][8] in shared memory (16-byte rows). row = R = 8*matrix + row_in_matrix; "
      "col = element index within the 16-byte row. Thread t (t < 8*num) supplies address &S[t][0] (thread 8q+r -> row r "
      "of matrix q). slot v = v-th 16-bit element of the register list (register j = slots 2j low half, 2j+1 high half). "
      "ldmatrix: S[R][c] = R*256+c, (thread,slot) records which S element landed in the slot (operand dst). "
      "stmatrix: slot v of thread t holds t*256+v; records where it was stored (operand src). For .trans the row/col are "
      "still the memory coordinates as addressed.";
  write_meta(fl, "ldmatrix", note);
  write_meta(fs, "stmatrix", note);
  int *d_addr; uint32_t* d_out; uint16_t* d_out16;
  CK(cudaMalloc(&d_addr, 32 * sizeof(int))); CK(cudaMalloc(&d_out, 128 * 4)); CK(cudaMalloc(&d_out16, 512));
  int total_fail = 0, total_decoded = 0, doc_mismatch = 0;
  for (int kind = 0; kind < 2; ++kind) {
    for (int variant = 0; variant < 6; ++variant) {
      int num = 1 << (variant % 3);  // 1, 2, 4
      int nrows = 8 * num, nslots = 2 * num;
      // map[perm][t][v] = (R, c)
      int mapR[2][32][8], mapC[2][32][8];
      int addr[2][32];
      for (int t = 0; t < 32; ++t) { addr[0][t] = t % nrows; addr[1][t] = (5 * (t % nrows) + 3) % nrows; }
      bool ok = true;
      for (int perm = 0; perm < 2; ++perm) {
        CK(cudaMemcpy(d_addr, addr[perm], sizeof(addr[perm]), cudaMemcpyHostToDevice));
        if (kind == 0) {
          k_ldmatrix<<<1, 32>>>(d_addr, d_out, variant); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
          uint32_t h[128]; CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
          std::vector<int> seen(32 * 8, 0);
          for (int t = 0; t < 32; ++t) for (int v = 0; v < nslots; ++v) {
            uint32_t w = h[t * 4 + v / 2]; uint16_t code = (v % 2) ? (w >> 16) : (w & 0xFFFF);
            int R = code >> 8, c = code & 0xFF;
            if (R >= nrows || c >= 8) { ok = false; mapR[perm][t][v] = -1; mapC[perm][t][v] = -1; continue; }
            mapR[perm][t][v] = R; mapC[perm][t][v] = c; seen[R * 8 + c]++;
          }
          for (int i = 0; i < nrows * 8; ++i) if (seen[i] != 1) ok = false;
        } else {
          k_stmatrix<<<1, 32>>>(d_addr, d_out16, variant); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
          uint16_t h[256]; CK(cudaMemcpy(h, d_out16, sizeof(h), cudaMemcpyDeviceToHost));
          for (int t = 0; t < 32; ++t) for (int v = 0; v < 8; ++v) { mapR[perm][t][v] = -1; mapC[perm][t][v] = -1; }
          for (int i = 0; i < 256; ++i) {
            int R = i / 8, c = i % 8;
            if (R >= nrows) { if (h[i] != 0xFFFF) ok = false; continue; }
            int t = h[i] >> 8, v = h[i] & 0xFF;
            if (h[i] == 0xFFFF || t >= 32 || v >= nslots || mapR[perm][t][v] != -1) { ok = false; continue; }
            mapR[perm][t][v] = R; mapC[perm][t][v] = c;
          }
          for (int t = 0; t < 32; ++t) for (int v = 0; v < nslots; ++v) if (mapR[perm][t][v] < 0) ok = false;
        }
      }
      // permutation check: perm run must equal canonical with row -> P(row)
      int perm_bad = 0;
      for (int t = 0; t < 32; ++t) for (int v = 0; v < nslots; ++v) {
        int R0 = mapR[0][t][v];
        if (R0 < 0) { perm_bad++; continue; }
        int R1 = mapR[1][t][v];
        // in the perm run, the address supplier of canonical row R0 is thread R0, which supplied row addr[1][R0]
        if (kind == 0) { if (R1 != addr[1][R0] || mapC[1][t][v] != mapC[0][t][v]) perm_bad++; }
        else {
          // stmatrix: slot (t,v) is written to the row whose address the supplier thread gave
          if (R1 != addr[1][R0] || mapC[1][t][v] != mapC[0][t][v]) perm_bad++;
        }
      }
      int dm = 0;
      const char* name = kind == 0 ? NAMES_LD[variant] : NAMES_ST[variant];
      FILE* f = kind == 0 ? fl : fs;
      for (int t = 0; t < 32; ++t) for (int v = 0; v < nslots; ++v) {
        int R = mapR[0][t][v], c = mapC[0][t][v];
        int dR, dc; doc_map(variant, t, v, dR, dc);
        if (R != dR || c != dc) dm++;
        fprintf(f, "{\"instr\": \"%s\", \"operand\": \"%s\", \"thread\": %d, \"slot\": %d, \"row\": %d, \"col\": %d, "
                   "\"matrix\": %d, \"row_in_matrix\": %d}\n",
                name, kind == 0 ? "dst" : "src", t, v, R, c, R >= 0 ? R / 8 : -1, R >= 0 ? R % 8 : -1);
        total_decoded++;
      }
      doc_mismatch += dm;
      if (!ok || perm_bad) total_fail++;
      printf("%-50s decoded %3d slots, coverage %s, address-permutation check %s (%d bad), vs PTX-doc formula: %d mismatches\n",
             name, 32 * nslots, ok ? "OK" : "FAIL", perm_bad ? "FAIL" : "OK", perm_bad, dm);
    }
  }
  fclose(fl); fclose(fs);
  printf("ldstmatrix: %d slots decoded, %s, %d doc mismatches\n", total_decoded, total_fail ? "FAIL" : "PASS", doc_mismatch);
  return total_fail ? 1 : 0;
}
