/* polyopt opt regression (hostile user): the loop condition i < n - 1 - i, the iterator on both sides, bounds i (2i < n - 1) (was refused). */
#include <stdio.h>
#define N 7
static void kern(int n, double A[N])
{
  int i;
  double tmp;
#pragma scop
  for (i = 0; i < n - 1 - i; i++) {
    tmp = A[i];
    A[i] = A[n - 1 - i];
    A[n - 1 - i] = tmp;
  }
#pragma endscop
}
int main(void){
  double A[N] = {1,2,3,4,5,6,7};
  kern(N, A);
  for (int i=0;i<N;i++) printf("%a\n", A[i]);
  return 0;
}
