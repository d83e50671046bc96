/* polyopt opt regression (hostile user, C block scopes): two sibling loops declare their own t, an int and a double. */
#include <stdio.h>
#define N 4
static void kern(int n, double A[N], int C[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    int t = C[i];
    C[i] = t * 2;
  }
  for (i = 0; i < n; i++) {
    double t = A[i] * 0.5;
    A[i] = t;
  }
#pragma endscop
}
int main(void){
  double A[N] = {1, 2, 3, 5}; int C[N] = {1, 2, 3, 4};
  kern(N, A, C);
  for (int i=0;i<N;i++) printf("%a %d\n", A[i], C[i]);
  return 0;
}
