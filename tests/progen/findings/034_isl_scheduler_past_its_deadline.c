#include <math.h>
#include <stdio.h>
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
/* Python's max and min of floats: the first operand unless the second is greater
   (smaller).  fmax and fmin leave the sign of a tie of zeros unspecified, and gcc's
   builtins (-O1 and up) and glibc's functions differ on it (fuzz finding 028) */
#define PYFMAX(a, b) ((b) > (a) ? (b) : (a))
#define PYFMIN(a, b) ((b) < (a) ? (b) : (a))
/* Python's % and // (the sign of the divisor, the floor), so that the C program computes
   what the Python one does and the shadow run's error bounds hold for it */
#define PYFMOD(a, b) (fmod(a, b) + ((fmod(a, b) != 0 && ((fmod(a, b) < 0) != ((b) < 0))) ? (b) : 0))
#define PYMOD(a, b) ((a) % (b) + ((((a) % (b)) != 0 && ((((a) % (b)) < 0) != ((b) < 0))) ? (b) : 0))
#define PYDIV(a, b) ((a) / (b) - ((((a) % (b)) != 0 && ((((a) % (b)) < 0) != ((b) < 0))) ? 1 : 0))

double kernel(int n, int m, int p, double A[n][m][p], double B[n], double C[n], long q, double alpha)
{
  double s1;
#pragma scop
  s1 = 0.0;
  for (int i = 0; i < n; i++) {
    if ((3 <= 2)) {
      C[((n - 1) - i)] = tanh(((double)floor(pow((fabs(0.1) + 0.5), 1.5) / 2.5) / (1.5 + fabs(expm1(tanh(cos(B[i])))))));
    } else
    if ((p == m)) {
      C[i] = tanh(((3 <= (p - 1)) ? (exp(tanh(C[i])) - ((!((i - 2) <= (n + i))) ? 2.0 : (i * 0.25))) : fabs(A[i][0][1])));
    } else {
      s1 += tanh(((m > (i + i)) ? (-C[i]) : PYFMAX(alpha, 1.25)));
    }
    double t2 = tanh((((n + 1) == 2) ? fabs(((double)s1 / (-4.0))) : pow((fabs(exp(tanh(1.25))) + 0.5), 0.5)));
    for (int j = MAX(0, (i - 2)); j < MIN(p, (i + 3)); j++) {
      B[j] = tanh(pow((fabs(((double)tanh(A[i][2][j]) / (1.5 + fabs(pow(0.5, 2))))) + 0.5), 2));
      double t3 = tanh((pow((-s1), 2) + PYFMAX(trunc(t2), (B[j] * ((double)(j))))));
      if ((1 == (m + m))) {
        s1 += tanh(pow((B[i] * s1), 2));
      } else
      if ((i == j)) {
        B[(j + 2)] = tanh(pow((fabs((exp(tanh(t3)) + (alpha - C[i]))) + 0.5), 2));
      } else {
        C[j] *= (0.99 + (0.01 * tanh(((j >= n) ? pow(C[(j + 2)], 2) : (2.0 * alpha)))));
        double t4 = tanh((((double)((double)C[((n - 1) - j)] / (1.5 + fabs(floor((((1 == (p + 1)) && ((m + j) > (p + i))) ? A[i][m - 2][0] : A[j][m - 3][j]))))) / 0.5) + (((n < (i + j)) && ((j + i) != 2)) ? tanh(3.0) : pow(t2, 2))));
      }
      if (((j + n) > (j + j))) {
        C[j] = tanh(pow(PYFMIN((-t3), tanh(((-2) * 0.25))), 2));
      } else {
        s1 += tanh((fabs(B[j]) * (C[j] * C[j])));
      }
      for (int k = 0; k < (i + 1); k++) {
        if (((3 <= 2) || ((m + k) >= 2))) {
          s1 += tanh(C[2]);
          B[(j + 2)] = tanh(pow((fabs(asinh(PYFMIN(B[k], (2 * 0.25)))) + 0.5), 0.5));
        } else
        if ((!(3 < p))) {
          A[((n - 1) - i)][2][2] = tanh(((fabs(C[j]) - (((j >= (m + i)) && (4 == 4)) ? C[((n - 1) - k)] : alpha)) + A[i][2][j]));
        } else {
          A[((n - 1) - i)][2][p - 3] += tanh(A[((n - 1) - i)][1][3]);
          B[k] = tanh((((4 != 4) || ((k + i) >= m)) ? PYFMIN((A[((n - 1) - j)][1][2] - 3.0), pow((fabs(B[k]) + 0.5), 1.5)) : ((double)(-A[i][2][0]) / (1.5 + fabs(fabs(s1))))));
        }
        if (((k + 1) >= 2)) {
          C[k] = tanh(ceil(((((p - 2) <= (i + m)) || (j <= n)) ? ((double)A[i][1][0] / (1.5 + fabs(sqrt(fabs(B[1]))))) : copysign(((double)(q)), t3))));
        } else {
          B[k] = tanh(((p < 0) ? (fabs(2.0) + PYFMAX(C[(j + 2)], s1)) : PYFMAX(t2, s1)));
          s1 += tanh(s1);
        }
      }
    }
  }
#pragma endscop
  return s1;
}

int main(void)
{
  int n = 11;
  int m = 3;
  int p = 5;
  static double A_data[165] = {-0x1.b08323b90184cp-1, -0x1.348fa3045f658p+0, -0x1.499d33f18449ep+0, 0x1.47ab82e8cdac6p+0, 0x1.be32a206144e0p-1, 0x1.6f7c405d745e0p-1, -0x1.dd49cacb543d2p+0, -0x1.3e0c4bb98a064p+0, -0x1.cfe20ae2f22d4p+0, -0x1.d36565bcf22a8p-2, -0x1.ccbcfd8f6145ap+0, -0x1.a12d1f4410588p+0, -0x1.dfb98008b1500p-7, -0x1.a4a015f97f776p+0, 0x1.dd6c3cbdc5b12p+0, -0x1.9809e1ab95788p-1, -0x1.73125fd9b0926p+0, -0x1.c0139ae31ec68p-1, -0x1.49b6083901094p+0, -0x1.a3114077526d8p+0, -0x1.8f9c32b8ff720p-1, -0x1.6c4dee4b5afa0p+0, -0x1.84e8c325d3ee8p-1, -0x1.a630895e74a1cp+0, 0x1.0d428e606a952p+0, 0x1.4860a6d92c988p+0, -0x1.56ab08b09f676p+0, 0x1.42990778eada0p-3, -0x1.057fdde2dff64p-1, 0x1.9451bba4a90b6p+0, -0x1.6d22ff22bc7d8p-2, 0x1.499a487343ba4p+0, 0x1.0a7bb0c4ca1b8p-2, 0x1.93260132f5278p-2, -0x1.32a4a331557a4p+0, -0x1.69191857d6f40p-2, 0x1.f43ce114554fep+0, -0x1.9c93d9592fdd4p+0, -0x1.8e7ea381e7300p-1, 0x1.81e0a0905f5e0p-2, -0x1.aba5d48bfa4d0p-1, -0x1.77296aa3ebf4cp+0, 0x1.304fb60080630p-1, 0x1.99bf92fb5ea2ep+0, -0x1.91e40d52c41ecp+0, 0x1.0db2b163b4798p-1, 0x1.c768b2b335e08p-2, 0x1.5f4aedb3e2160p-4, 0x1.e1d401b67b1a8p-2, 0x1.8d274b3c39a6cp+0, -0x1.2bf65f93800c6p+0, -0x1.3abfda0466edep+0, -0x1.23b4355a8cd88p-1, 0x1.20dd14d9cab40p-1, -0x1.35af1efcc7858p+0, -0x1.25b25f7ecb844p-1, 0x1.2a817500df192p+0, 0x1.7288764df9564p-1, 0x1.a4f4c42d09ee0p-3, -0x1.19843938ff9a8p+0, -0x1.db883fba897b6p+0, 0x1.07cdf80d7b144p-1, 0x1.5b9438c015410p-2, 0x1.b7c885b012782p+0, 0x1.79c00b232cf50p-2, -0x1.e48640d8e69d8p-2, -0x1.cce877ea16b00p-2, 0x1.94b20b20534fcp-1, -0x1.1e7f0cad45bc8p+0, -0x1.935507c4e2274p+0, 0x1.b6c7b907ece0ap+0, -0x1.92a076802ef00p-1, 0x1.5ef6707edcd50p-3, -0x1.9f3e0f196b7a2p+0, -0x1.535b3e973f600p-7, -0x1.f94a570f3ca74p-1, -0x1.cf38c35f860e0p-4, -0x1.90ee213c4ee00p-6, 0x1.b32927cf6e924p+0, 0x1.8703a4a051c18p-2, 0x1.7d3cd82a2ae00p-6, -0x1.764cd727a4b24p+0, -0x1.9eb886bc54ee2p+0, 0x1.4db356ac23e68p-2, -0x1.f0d2cbbcff81ep+0, 0x1.007654d10067cp-1, -0x1.7486f143fa5c8p-1, -0x1.149ee31a20f6cp+0, -0x1.94b9ecedaff06p+0, -0x1.d9b3b3598d790p+0, 0x1.afe7896260198p+0, 0x1.8a60fde350f9cp-1, -0x1.152efdde75700p+0, 0x1.1e9c3109dca12p+0, 0x1.fd5bdfa674ad2p+0, 0x1.4dab462dcf2eep+0, -0x1.7ab0312782814p+0, 0x1.7382ab0c2b86ap+0, -0x1.c32ab8ec190a0p-2, -0x1.9bbcf0f544f80p-4, -0x1.70ad79c95b0f0p-2, -0x1.f1b045c86b080p-5, -0x1.48d99fe4195e4p+0, 0x1.794a49c673becp-1, 0x1.47b533730f880p-5, -0x1.b04fa125ff9dap+0, -0x1.873b244424300p-3, 0x1.72262b879034ap+0, 0x1.be003f2892362p+0, 0x1.2b2d9b624fd04p+0, 0x1.1a0f20bbe62c8p+0, -0x1.189a2e7050966p+0, 0x1.d766fbc2af5c8p+0, 0x1.16724def75fa8p-1, 0x1.26c1ce9c79772p+0, -0x1.3f2028b32f20ep+0, -0x1.e14fe45ded5b4p-1, -0x1.d324a124913c2p+0, 0x1.cb5931c3bbc80p-3, -0x1.0d0dd9e2c02c0p-4, 0x1.1bb0a545263f4p-1, 0x1.56ac02336ab68p-1, -0x1.8d9291e83be5ep+0, 0x1.ff7747252bb78p+0, 0x1.7eec3b66c95ccp-1, -0x1.08020041d4fc0p-3, -0x1.2ac90f24b1fe8p-2, -0x1.f1c3fb128d1d8p-2, -0x1.b07a4bdb106e6p+0, 0x1.fa03293df11a0p+0, 0x1.5d6b0c0d7a970p+0, 0x1.ea1a950249c34p-1, 0x1.2acdbb16ecc00p-1, -0x1.1ade8218f331cp+0, 0x1.fc10b733e9ba6p+0, -0x1.87d592ecb516cp+0, 0x1.ea2809c49b0ccp+0, 0x1.23973e2750d72p+0, 0x1.a68d8930e7580p+0, -0x1.54e8180503aeap+0, -0x1.3af1b25cc5fdcp+0, 0x1.1c9c1e06dcdd8p+0, 0x1.605d8c944c2c0p-3, -0x1.b53992f8e8b20p-3, 0x1.656fb80a0bb4cp+0, 0x1.ff1667320bd30p+0, 0x1.3dc3226364b40p-5, -0x1.66730cc391810p-1, -0x1.3f63905da545ep+0, 0x1.105673ecd87e8p+0, 0x1.4ab974dbdbad0p-2, 0x1.255e83c7e6f72p+0, -0x1.4b80e5bae3ca0p-4, -0x1.3ef62ad5a2240p-4, 0x1.4ea70194af5b4p-1, 0x1.ac10d9c42e2c8p-1, 0x1.d6c7ab7cc1140p-3, -0x1.783d1f512e7a6p+0, -0x1.6493c41ba8f68p+0, -0x1.4f559912e513ep+0, 0x1.9fb5add649ddcp+0, 0x1.4ef49314f32a0p-4, 0x1.3570257cafbc2p+0, 0x1.40b3fbb16ae46p+0, -0x1.0d83768bd5004p+0};
  static double B_data[11] = {0x1.de1175f009f98p-1, 0x1.0e6c85e0a9730p-2, -0x1.8b025a808bb70p-2, -0x1.a1da1bec0a8a4p+0, -0x1.b0a828496ca6cp-1, -0x1.1ea7e1e1ab576p+0, -0x1.d49ccecbea480p-5, 0x1.95c9a7d34f4bcp+0, -0x1.2e948107ca7e0p-4, -0x1.164f4977154e0p-3, -0x1.f3f09f41bfe56p+0};
  static double C_data[11] = {-0x1.70dcdb9309534p+0, -0x1.97ef79223dc82p+0, -0x1.dca171f1b316ep+0, -0x1.734cf29245f64p-1, 0x1.02981d7830a84p-1, -0x1.41e5b00e31e70p-3, 0x1.bbd8dc7018548p+0, 0x1.c70bfd9a00b3ep+0, -0x1.31352be0ee616p+0, -0x1.07d9a18f2cbeap+0, 0x1.b4441dbe780e0p-2};
  long q = 2;
  double alpha = -0x1.0000000000000p-2;
  printf("ret %a\n", (double)kernel(n, m, p, (double (*)[m][p])A_data, (double (*))B_data, (double (*))C_data, q, alpha));
  printf("array A 165\n");
  for (int e = 0; e < 165; e++) printf("%a\n", (double)A_data[e]);
  printf("array B 11\n");
  for (int e = 0; e < 11; e++) printf("%a\n", (double)B_data[e]);
  printf("array C 11\n");
  for (int e = 0; e < 11; e++) printf("%a\n", (double)C_data[e]);
  return 0;
}
