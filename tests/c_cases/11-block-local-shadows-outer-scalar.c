/* polyopt opt regression (hostile user, C block scopes): a block's int tmp shadows the function's double tmp, which a later loop of the region reads. */
#include <stdio.h>
#define N 4
static void kern(int n, double A[N], int C[N])
{
  int i;
  double tmp = 0.25;
#pragma scop
  for (i = 0; i < n; i++) {
    int tmp = C[i];
    C[i] = tmp + 1;
  }
  for (i = 0; i < n; i++)
    A[i] += tmp;
#pragma endscop
}
int main(void){
  double A[N] = {1, 2, 3, 4}; int C[N] = {10, 20, 30, 40};
  kern(N, A, C);
  for (int i=0;i<N;i++) printf("%a %d\n", A[i], C[i]);
  return 0;
}
