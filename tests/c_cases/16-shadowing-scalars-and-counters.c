/* polyopt opt regression (C block scopes): a scalar shadowing a function-level scalar, two for-header counters named alike, and a block local in a nested block. */
#include <stdio.h>
#define N 8
static double kern(int n, double A[N], double B[N])
{
  double s = 0.0;
#pragma scop
  for (int i = 0; i < n; i++) {
    double s = A[i] * 2.0;
    B[i] = s;
  }
  for (int i = 0; i < n; i++) {
    int s2 = (int)B[i];
    { double s2b = s2 * 0.5; A[i] = s2b + s; }
  }
  for (int i = 0; i < n; i++)
    s += A[i];
#pragma endscop
  return s;
}
int main(void){ double A[N], B[N]; for (int i=0;i<N;i++){A[i]=i*0.75;B[i]=0;} double r = kern(N, A, B); printf("%a\n", r); for (int i=0;i<N;i++) printf("%a %a\n", A[i], B[i]); return 0; }
